/**
 * The status-mechanism conformance suite (`runStatusMechanismConformance` of didvault/testing) for both mechanisms of
 * the issuing-side status port: the Bitstring Status List (a VC-JWT list, read back as `POST /claims/verify` reads a
 * list: verified, then decoded) and the Token Status List (a Status List Token, read back through
 * `verifyStatusListToken` and `statusAt`). Issuers are P-256 keys of the key port (sealed backend on a real SQLite
 * file) with did:key DIDs, resolved through didvault's DID method registry.
 */
import { afterAll, beforeAll } from 'vitest'
import { bitstringMechanism } from '../../src/status/mechanisms/bitstring.js'
import { tokenStatusListMechanism } from '../../src/status/mechanisms/token-status-list.js'
import type { FormatName } from '../../src/credentials/formats/index.js'
import type { StatusListRecord } from '../../src/status/records.js'
import { listUrlOf } from '../../src/status/list-url.js'
import { readStatusList } from '../../src/status/status-list-read.js'
import { statusAt, verifyStatusListToken } from '../../src/status/token-status-list/index.js'
import { runStatusMechanismConformance, type StatusMechanismFixture } from '../../src/testing/index.js'
import { openKeyPort, portIdentity, resolver } from '../credentials/sd-jwt/helpers.js'

const VERIFY_AT = Date.UTC(2026, 0, 1) + 1000

let port: Awaited<ReturnType<typeof openKeyPort>>
beforeAll(async () => {
  port = await openKeyPort()
})
afterAll(() => port.close())

function listOf(issuer: string, format: FormatName): StatusListRecord {
  return {
    id: 'L1',
    tenantId: 't',
    issuer,
    purpose: 'suspension',
    format,
    size: 64,
    baseUrl: 'https://vault.example.com',
    full: false,
    allocated: 8,
    version: 1,
    signedVersion: -1,
    createdAt: 0,
  }
}

async function fixture(format: FormatName, read: StatusMechanismFixture['read']): Promise<StatusMechanismFixture> {
  const { signer, did } = await portIdentity(port.keys, 'P-256')
  return { list: listOf(did, format), signer, resolver, read }
}

runStatusMechanismConformance(bitstringMechanism, () =>
  fixture('JWT', async ({ credential }, list, index) => {
    const read = await readStatusList(credential, { resolver, now: VERIFY_AT }, 1024 * 1024)
    if (!('bits' in read)) throw new Error(read.error)
    if (read.issuer !== list.issuer || !read.purposes.includes(list.purpose)) throw new Error('not the list of its issuer and purpose')
    return read.bits.get(index) ? 1 : 0
  }),
)

runStatusMechanismConformance(tokenStatusListMechanism, () =>
  fixture('SD-JWT', async ({ credential }, list, index) => {
    const uri = listUrlOf(list.baseUrl, list.id)
    const token = await verifyStatusListToken(credential, { resolver, uri, now: VERIFY_AT })
    if (!token.verified) throw new Error(`${token.check}: ${token.reason}`)
    if (token.issuer !== list.issuer) throw new Error('not the list of its issuer')
    return statusAt(token.list, token.bits, index)
  }),
)
