/**
 * `walletConfig.txsInput` on a did:web DID the service serves: checked whole before anything is written (422 naming
 * the element), then applied in one transaction, each element the document's next version. `service` → a service
 * entry; `delegate` → a verification method under `assertionMethod` only, its key given (`publicKeyJwk`) or made
 * through the key port (only `validity`: a key of the wallet's type, kept sealed); `newOwner` → `controller` (the
 * document's own key leaves it). `delegate.address` is a did:ethr notion: 422.
 */
import { invalid } from '../../../errors.js'
import { keyTypeOfJwk, type PublicJwk } from '../../../keys/key-types.js'
import type { KeyManager, StagedKey } from '../../../keys/port.js'
import { collectionOf } from '../../../storage/declaration.js'
import { UniqueConstraintError, type StorageAdapter } from '../../../storage/port.js'
import { publicKeyBytes } from '../public-key-bytes.js'
import { MAX_DID_WEB_VERSIONS, type OwnDidWebWallet } from './own-documents.js'
import { DID_WEB_CHANGES, type DidWebChange, type DidWebChangeRecord } from './records.js'

/** A `txsInput` element as the wallet config's schema parsed it (`validity` in ms). */
export interface DidWebTxInput {
  service?: { name: string; value: string; validity: number }
  delegate?: { address?: string; publicKeyJwk?: Record<string, unknown>; validity: number }
  newOwner?: string
}

/** A checked element: what it will change. */
export type DidWebTx =
  | { kind: 'service'; type: string; serviceEndpoint: string; validityMs: number }
  | { kind: 'delegate'; publicKeyJwk?: PublicJwk; validityMs: number }
  | { kind: 'controller'; controller: string }

/** An applied element: its version, and the change recorded. */
export interface AppliedDidWebTx {
  version: number
  change: DidWebChange
}

/** How many times a write that lost a version race to another writer is tried again. */
const ATTEMPTS = 5

/** Checks every element of `txs` (422 naming the first wrong one); nothing is written. */
export function checkDidWebTxs(txs: readonly DidWebTxInput[], field = 'walletConfig.txsInput'): DidWebTx[] {
  if (txs.length > MAX_DID_WEB_VERSIONS) throw invalid(`${field}: at most ${MAX_DID_WEB_VERSIONS} changes`)
  return txs.map((tx, i) => {
    const at = `${field}.${i}`
    if (tx.service !== undefined) {
      const { name, value, validity } = tx.service
      return { kind: 'service', type: name, serviceEndpoint: value, validityMs: validity }
    }
    if (tx.delegate !== undefined) {
      const { address, publicKeyJwk, validity } = tx.delegate
      if (address !== undefined)
        throw invalid(
          `${at}.delegate.address: a did:web delegate is a key, not an address: give publicKeyJwk, or only validity for a new key`,
        )
      return { kind: 'delegate', validityMs: validity, ...(publicKeyJwk !== undefined && { publicKeyJwk: checkedJwk(publicKeyJwk, at) }) }
    }
    return { kind: 'controller', controller: tx.newOwner! }
  })
}

/** `jwk` as a public key of a type didvault uses; 422 otherwise (never echoing the JWK: it might hold a private key). */
function checkedJwk(jwk: Record<string, unknown>, at: string): PublicJwk {
  if ('d' in jwk) throw invalid(`${at}.delegate.publicKeyJwk: carries a private key (d); give the public key only`)
  if (keyTypeOfJwk(jwk) === undefined) throw invalid(`${at}.delegate.publicKeyJwk: not a secp256k1, P-256 or Ed25519 public JWK`)
  const { kty, crv, x, y } = jwk as unknown as PublicJwk
  const key: PublicJwk = y === undefined ? { kty, crv, x } : { kty, crv, x, y }
  try {
    publicKeyBytes(key)
  } catch {
    throw invalid(`${at}.delegate.publicKeyJwk: not a valid public key of its curve`)
  }
  return key
}

/**
 * Applies checked `txs` to `wallet`'s document in one transaction (each the next version), with the keys of
 * delegates given only a validity made through `keys` and stored in it; `inTransaction` adds the caller's writes
 * (the audit trail). 422 when the document would pass {@link MAX_DID_WEB_VERSIONS}.
 */
export async function applyDidWebTxs(
  ctx: { storage: StorageAdapter; keyManager: Pick<KeyManager, 'stageKey'>; now: () => number },
  wallet: Pick<OwnDidWebWallet, 'id' | 'tenantId' | 'did' | 'keyType'>,
  txs: readonly DidWebTx[],
  inTransaction?: (tx: StorageAdapter, applied: AppliedDidWebTx[]) => Promise<void>,
): Promise<AppliedDidWebTx[]> {
  if (txs.length === 0) return []
  const staged: Array<StagedKey | undefined> = []
  for (const t of txs) {
    const generated = t.kind === 'delegate' && t.publicKeyJwk === undefined
    staged.push(generated ? await ctx.keyManager.stageKey({ tenantId: wallet.tenantId, type: wallet.keyType }) : undefined)
  }
  for (let attempt = 1; ; attempt++) {
    const now = ctx.now()
    const changes: DidWebChange[] = txs.map((t, i) => changeOf(t, now, staged[i]))
    try {
      return await ctx.storage.transaction(async (tx) => {
        const head = await headVersion(tx, wallet.did)
        if (head + changes.length > MAX_DID_WEB_VERSIONS)
          throw invalid(`walletConfig.txsInput: ${wallet.did} has ${head} versions; a document keeps at most ${MAX_DID_WEB_VERSIONS}`)
        const applied = changes.map((change, i) => ({ version: head + 1 + i, change }))
        await collectionOf(tx, DID_WEB_CHANGES).insertMany(applied.map((a) => recordOf(wallet, a, now)))
        for (const key of staged) await key?.store(tx)
        await inTransaction?.(tx, applied)
        return applied
      })
    } catch (err) {
      if (!(err instanceof UniqueConstraintError) || attempt >= ATTEMPTS) throw err
    }
  }
}

/**
 * Deactivates `wallet`'s DID inside `tx` (the transaction deleting the wallet): its last version says so, keeping the
 * key so past versions still resolve. Returns the key-port references of the delegate keys the service made for it,
 * for the caller to destroy with the wallet's.
 */
export async function deactivateDidWeb(
  tx: StorageAdapter,
  wallet: Pick<OwnDidWebWallet, 'id' | 'tenantId' | 'did' | 'publicKeyJwk' | 'bbsPublicKeyJwk' | 'createdAt'>,
  now: number,
): Promise<string[]> {
  const changes = collectionOf(tx, DID_WEB_CHANGES)
  const page = await changes.find(
    { field: 'did', op: 'eq', value: wallet.did },
    { orderBy: { field: 'version' }, limit: MAX_DID_WEB_VERSIONS + 1 },
  )
  const head = page.items.at(-1)?.version ?? 0
  const { publicKeyJwk, bbsPublicKeyJwk, createdAt } = wallet
  const change: DidWebChange = {
    kind: 'deactivate',
    publicKeyJwk,
    ...(bbsPublicKeyJwk !== undefined && { bbsPublicKeyJwk }),
    walletCreatedAt: createdAt,
  }
  await changes.insert(recordOf(wallet, { version: head + 1, change }, now))
  return page.items.flatMap((r) => (r.change.kind === 'delegate' && r.change.keyRef !== undefined ? [r.change.keyRef] : []))
}

async function headVersion(storage: StorageAdapter, did: string): Promise<number> {
  const page = await collectionOf(storage, DID_WEB_CHANGES).find(
    { field: 'did', op: 'eq', value: did },
    { orderBy: { field: 'version', direction: 'desc' }, limit: 1 },
  )
  const last = page.items[0]
  if (last?.change.kind === 'deactivate') throw invalid(`walletConfig.txsInput: ${did} is deactivated`)
  return last?.version ?? 0
}

/** ERC-1056's rule, kept for did:web: a validity in ms ends at the next whole second, UNIX seconds. */
const validTo = (now: number, validityMs: number) => Math.ceil((now + validityMs) / 1000)

function changeOf(t: DidWebTx, now: number, staged: { keyRef: string; publicJwk: PublicJwk } | undefined): DidWebChange {
  if (t.kind === 'service')
    return { kind: 'service', type: t.type, serviceEndpoint: t.serviceEndpoint, validTo: validTo(now, t.validityMs) }
  if (t.kind === 'controller') return { kind: 'controller', controller: t.controller }
  const until = validTo(now, t.validityMs)
  return staged === undefined
    ? { kind: 'delegate', publicKeyJwk: t.publicKeyJwk!, validTo: until }
    : { kind: 'delegate', publicKeyJwk: staged.publicJwk, keyRef: staged.keyRef, validTo: until }
}

function recordOf(wallet: Pick<OwnDidWebWallet, 'id' | 'tenantId' | 'did'>, applied: AppliedDidWebTx, now: number): DidWebChangeRecord {
  return {
    id: `${wallet.did}/${applied.version}`,
    did: wallet.did,
    version: applied.version,
    tenantId: wallet.tenantId,
    walletId: wallet.id,
    change: applied.change,
    createdAt: now,
  }
}
