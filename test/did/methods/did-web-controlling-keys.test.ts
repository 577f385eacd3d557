/**
 * One definition of who controls the service's own did:web DIDs: the did:web method's `controllingKeys` (the DID-method
 * port) and the access policy's caller facts (`CallerFacts.controllingKeys`) name the same keys — before and after the
 * wallet hands its DID to another DID with `newOwner` (Configure Identity Wallet through the real router), whatever that
 * DID's method and key type: an outside did:key or did:jwk holder, a did:ethr wallet of the tenant, another own did:web
 * wallet. Once handed over, both name the heir's keys and no longer the wallet's own key. The method is made over the
 * service's storage as the service makes it (`didWebMethod`, `otherControllingKeys`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { didWebMethod, DidWebResolver, OwnDidWebDocuments, type ControllingKey, type DidMethod } from '../../../src/did/methods/index.js'
import { keyIdOfJwk } from '../../../src/keys/key-ids.js'
import type { PublicJwk } from '../../../src/keys/key-types.js'
import { randomMasterKey } from '../../../src/index.js'
import { CallerFacts, otherControllingKeys } from '../../../src/roles/caller-facts.js'
import { storedDidWebWallets } from '../../../src/wallets/did-web-wallets.js'
import { ownKeyTokens, type WalletTokenSigner } from '../../helpers/wallet-tokens.js'
import { startHarness, type Harness } from '../../helpers/harness.js'
import { didJwtHolder } from '../../helpers/key-holders.js'

const MASTER_KEY = randomMasterKey()
const PUBLIC_URL = 'https://vault.example.com:8443/id'

let h: Harness
let tokenOfWallet: WalletTokenSigner
let facts: CallerFacts
let method: DidMethod

beforeAll(async () => {
  h = await startHarness({ service: { masterKey: MASTER_KEY, publicUrl: PUBLIC_URL } })
  tokenOfWallet = await ownKeyTokens(h.storage, MASTER_KEY)
  facts = new CallerFacts(h.service.resolver, h.storage, () => h.service.didAuthOptions.resolver)
  const own = new OwnDidWebDocuments({ storage: h.storage, wallets: storedDidWebWallets(h.storage), publicUrl: PUBLIC_URL, now: Date.now })
  method = didWebMethod({
    publicUrl: PUBLIC_URL,
    own,
    foreign: new DidWebResolver({ publicUrl: PUBLIC_URL, own }),
    storage: h.storage,
    keyManager: {
      stageKey: () => {
        throw new Error('updates go through the service')
      },
    },
    now: Date.now,
    otherControllingKeys: otherControllingKeys(facts),
  })
})
afterAll(() => h?.close())

async function newWallet(walletConfig: Record<string, string>) {
  const res = await h.request('POST', '/wallet', { json: { walletConfig } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.wallet as { did: string; _id: string; publicKeyJwk: PublicJwk; ethereumAddress?: string }
}

const keyIdOf = (key: ControllingKey) => key.address ?? keyIdOfJwk(key.publicJwk!)

/** The key ids of the keys that control `did`, as the method names them and as the caller facts do. */
async function bothViews(did: string) {
  const byMethod = [...new Set((await method.controllingKeys(did)).map(keyIdOf))].sort()
  const byFacts = [...(await facts.controllingKeys(did))].sort()
  return { byMethod, byFacts }
}

/** The heirs a did:web wallet is handed to: their DID and the key id of the key that controls it. */
const HEIRS: ReadonlyArray<readonly [string, () => Promise<{ did: string; keyId: string }>]> = [
  [
    'a did:key P-256 wallet of the tenant',
    async () => {
      const w = await newWallet({ didMethod: 'key', keyType: 'P-256' })
      return { did: w.did, keyId: keyIdOfJwk(w.publicKeyJwk) }
    },
  ],
  [
    'an outside did:jwk Ed25519 holder',
    async () => {
      const { did } = didJwtHolder('jwk', 'Ed25519')
      return { did, keyId: keyIdOfJwk(JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString())) }
    },
  ],
  [
    'a did:ethr wallet of the tenant',
    async () => {
      const w = await newWallet({})
      return { did: w.did, keyId: w.ethereumAddress! }
    },
  ],
  [
    'another own did:web Ed25519 wallet',
    async () => {
      const w = await newWallet({ didMethod: 'web', keyType: 'Ed25519' })
      return { did: w.did, keyId: keyIdOfJwk(w.publicKeyJwk) }
    },
  ],
]

describe('did:web controllingKeys: the method and the caller facts agree', () => {
  it.each(HEIRS)('before and after a newOwner to %s', async (_name, heirOf) => {
    const wallet = await newWallet({ didMethod: 'web', keyType: 'P-256' })
    const ownKey = keyIdOfJwk(wallet.publicKeyJwk)
    expect(await bothViews(wallet.did)).toEqual({ byMethod: [ownKey], byFacts: [ownKey] })
    const heir = await heirOf()
    const handed = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: wallet.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } },
      didAuth: await tokenOfWallet(wallet._id, wallet.did),
    })
    expect(handed.status, JSON.stringify(handed.body)).toBe(200)
    const { byMethod, byFacts } = await bothViews(wallet.did)
    expect(byFacts).toEqual([heir.keyId])
    expect(byMethod).toEqual(byFacts)
  })
})
