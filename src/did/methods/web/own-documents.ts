/**
 * Resolution of the did:web DIDs the service serves (`did:web:<publicUrl host>:<path>:dids:<walletId>`), from its
 * storage only — never fetched: the wallet's key (through {@link OwnDidWebWallets}, implemented by the wallets) and
 * the document's changes (`didWebChanges`). Current and past versions (`versionId`: 0 is the wallet's creation, each
 * change the next; `versionTime`: the version in force then); a deleted wallet's DID is deactivated (HTTP 410).
 */
import { parse, type DIDResolutionResult, type Resolvable } from 'did-resolver'
import type { BbsPublicJwk, KeyType, PublicJwk } from '../../../keys/key-types.js'
import { collectionOf } from '../../../storage/declaration.js'
import type { StorageAdapter } from '../../../storage/port.js'
import { versionRequest } from '../../version.js'
import { unresolved } from '../derived.js'
import { deactivatedDocument, didWebDocument, type VersionedChange } from './document.js'
import { didOfDidUrl, didWebOfWallet, MAX_DID_WEB_LENGTH } from './did-web-url.js'
import { DID_WEB_CHANGES, type DidWebChangeRecord } from './records.js'

/** Most versions a did:web document keeps (its changes; the deactivation may come on top): reads stay bounded. */
export const MAX_DID_WEB_VERSIONS = 1_000

/** A did:web wallet of the service, as its document needs it. */
export interface OwnDidWebWallet {
  id: string
  tenantId: string
  did: string
  keyType: KeyType
  publicKeyJwk: PublicJwk
  /** The wallet's BBS assertion key, listed as `#bbs-0` under `assertionMethod` only. */
  bbsPublicKeyJwk?: BbsPublicJwk
  createdAt: number
}

/** The port through which did:web finds a wallet of its DID (the wallets implement it; the lookup ignores tenants). */
export interface OwnDidWebWallets {
  walletOfDid(did: string): Promise<OwnDidWebWallet | undefined>
}

/** A document's history: its creation, its key, and its changes by version. */
export interface DidWebHistory {
  publicKeyJwk: PublicJwk
  bbsPublicKeyJwk?: BbsPublicJwk
  createdAt: number
  changes: DidWebChangeRecord[]
}

const WALLET_ID = /^[A-Za-z0-9_-]{1,100}$/

/** UNIX ms as an XML date-time without fractions, as did-resolver's metadata has them. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

/** The changes of `did`, by version (at most {@link MAX_DID_WEB_VERSIONS} + 1: the deactivation). */
export async function changesOf(storage: StorageAdapter, did: string): Promise<DidWebChangeRecord[]> {
  const page = await collectionOf(storage, DID_WEB_CHANGES).find(
    { field: 'did', op: 'eq', value: did },
    { orderBy: { field: 'version' }, limit: MAX_DID_WEB_VERSIONS + 1 },
  )
  return page.items
}

/** The did:web documents of the service's wallets, from storage. */
export class OwnDidWebDocuments implements Resolvable {
  readonly #prefix: string | undefined

  constructor(
    private readonly options: {
      storage: StorageAdapter
      wallets: OwnDidWebWallets
      publicUrl?: string
      now: () => number
    },
  ) {
    this.#prefix = options.publicUrl === undefined ? undefined : didWebOfWallet(options.publicUrl, '')
  }

  /** The wallet id in `did` when it is a DID of this service's form (`…:dids:<walletId>`), else undefined. */
  walletIdOf(did: string): string | undefined {
    if (this.#prefix === undefined || !did.startsWith(this.#prefix)) return undefined
    const id = did.slice(this.#prefix.length)
    return WALLET_ID.test(id) ? id : undefined
  }

  /** The wallet whose DID is `did`, when it is one of the service's did:web wallets. */
  async walletOf(did: string): Promise<OwnDidWebWallet | undefined> {
    return this.walletIdOf(did) === undefined ? undefined : this.options.wallets.walletOfDid(did)
  }

  /** The history of `did`: from its wallet, or from its deactivation once the wallet is gone; undefined for a DID not held. */
  async history(did: string): Promise<DidWebHistory | undefined> {
    const [wallet, changes] = await Promise.all([this.options.wallets.walletOfDid(did), changesOf(this.options.storage, did)])
    if (wallet !== undefined) {
      const { publicKeyJwk, bbsPublicKeyJwk, createdAt } = wallet
      return { publicKeyJwk, ...(bbsPublicKeyJwk !== undefined && { bbsPublicKeyJwk }), createdAt, changes }
    }
    const last = changes.at(-1)?.change
    if (last?.kind !== 'deactivate') return undefined
    const { publicKeyJwk, bbsPublicKeyJwk, walletCreatedAt } = last
    return { publicKeyJwk, ...(bbsPublicKeyJwk !== undefined && { bbsPublicKeyJwk }), createdAt: walletCreatedAt, changes }
  }

  /** Resolves a DID URL of the service's did:web DIDs (its DID's document), current or at the version its query names. */
  async resolve(didUrl: string): Promise<DIDResolutionResult> {
    if (didUrl.length > MAX_DID_WEB_LENGTH) return unresolved('invalidDid', `did:web: longer than ${MAX_DID_WEB_LENGTH} characters`)
    const did = didOfDidUrl(didUrl)
    const notFound = unresolved('notFound', 'did:web: under the service’s publicUrl and not among its DIDs')
    if (this.walletIdOf(did) === undefined) return notFound
    const parsed = parse(didUrl)
    if (parsed === null) return unresolved('invalidDidUrl', 'did:web: not a DID URL')
    const asked = versionRequest(parsed)
    if (!asked.ok) return asked.failure
    const history = await this.history(did)
    if (history === undefined) return notFound
    const now = this.options.now()
    const times = [history.createdAt, ...history.changes.map((c) => c.createdAt)]
    const head = times.length - 1
    let version = head
    if (asked.version !== undefined && 'versionId' in asked.version) version = asked.version.versionId
    if (asked.version !== undefined && 'versionTime' in asked.version) {
      const seconds = asked.version.versionTime
      version = times.filter((ms) => Math.floor(ms / 1000) <= seconds).length - 1
    }
    if (version < 0 || version > head) return unresolved('notFound', `did:web: ${did} has no such version (versions 0 to ${head})`)
    // Validity is judged at the time asked for; for a version, until the next one (the latest: at the present).
    let at = version === head ? now : times[version + 1] - 1
    if (asked.version !== undefined && 'versionTime' in asked.version) at = Math.min(now, asked.version.versionTime * 1000 + 999)
    const changes: VersionedChange[] = history.changes.slice(0, version)
    const metadata: Record<string, unknown> = { created: isoSeconds(history.createdAt) }
    if (version > 0) metadata.updated = isoSeconds(times[version])
    metadata.versionId = String(version)
    if (version < head) {
      metadata.nextVersionId = String(version + 1)
      metadata.nextUpdate = isoSeconds(times[version + 1])
    }
    const deactivated = changes.at(-1)?.change.kind === 'deactivate'
    if (deactivated) metadata.deactivated = true
    return {
      didResolutionMetadata: { contentType: 'application/did+ld+json' },
      didDocument: deactivated ? deactivatedDocument(did) : didWebDocument(did, history, changes, at),
      didDocumentMetadata: metadata,
    }
  }
}
