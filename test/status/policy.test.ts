/**
 * The status-change rule over facts: only the issuer's owner key or control of the vault holding
 * the issuer's wallet allows; a delegate's token naming the issuer DID, a role held, another key of
 * the tenant do not.
 */
import { describe, expect, it } from 'vitest'
import { changesStatus } from '../../src/status/policy.js'

const OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const DELEGATE = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const issuer = { did: 'did:ethr:dev:0x0000000000000000000000000000000000000001', controllingKeys: [OWNER], vault: { id: 'vault-1' } }
const caller = (addresses: string[], vaultKeys: string[] = []) => ({ keys: new Set(addresses), vaultKeys: new Set(vaultKeys) })

describe('changeStatus rule', () => {
  it('allows the owner key of the issuer DID (DID control) and the vault holding it (vault control)', () => {
    expect(changesStatus(caller([OWNER]), issuer)).toMatchObject({ allowed: true, ground: expect.stringContaining('DID control') })
    expect(changesStatus(caller([DELEGATE], ['vault-1']), issuer)).toMatchObject({
      allowed: true,
      ground: expect.stringContaining('vault'),
    })
  })

  it('refuses a delegate of the issuer, another key, another vault’s key — and facts it does not read (roles) change nothing', () => {
    expect(changesStatus(caller([DELEGATE]), issuer).allowed).toBe(false)
    expect(changesStatus(caller([DELEGATE], ['vault-2']), issuer).allowed).toBe(false)
    const roleHolder = { ...caller([DELEGATE]), dids: new Set([issuer.did]), roles: new Map([['did:ethr:dev:0xrole', ['Write']]]) }
    expect(changesStatus(roleHolder, issuer).allowed).toBe(false)
    expect(changesStatus(caller([]), { ...issuer, vault: undefined }).allowed).toBe(false)
  })
})
