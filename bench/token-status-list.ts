/**
 * Publishing a changed IETF Token Status List (issue 31 §3, *Performance*): one status of a 131,072-entry 2-bit list
 * set, the list encoded (`encodeStatusList`: packed, ZLIB level 9, base64url) and the Status List Token signed with a
 * P-256 key through the key port (the sealed backend on a SQLite file: the key record read and unsealed per
 * signature) — p50 target ≤ 50 ms — interleaved with @sd-jwt/jwt-status-list 0.19.0 doing the same change on its own
 * `StatusList` and `createHeaderAndPayload` (which compresses the list, with pako at level 9) plus the JWT's encoded
 * header and payload: the floor, unsigned.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list'
import { didMethodNamed } from '../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../src/keys/backends/sealed/index.js'
import { Keyring, randomMasterKey } from '../src/keys/keyring.js'
import { portKeySigner } from '../src/keys/port-signers.js'
import { BackendKeyManager } from '../src/keys/port.js'
import { encodeStatusList, signStatusListToken, STATUS_INVALID, STATUS_SUSPENDED } from '../src/status/token-status-list/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

/** Entries of the list, as the lists. */
const SIZE = 131_072
const BITS = 2
/** Entries already revoked or suspended when the bench starts: 1%, at random positions. */
const CHANGED = SIZE / 100
const URI = 'https://issuer.example/status/bench'

export interface TokenStatusListResults {
  entries: number
  bits: number
  /** Set one status, encode, sign (P-256, key port, SQLite). */
  publish: Measurement
  /** @sd-jwt/jwt-status-list: set one status, `createHeaderAndPayload` (compresses), encoded header and payload. */
  floor: Measurement
  /** publish p50 ÷ floor p50 (information). */
  p50VsFloor: number
  /** Length of the token published last, characters. */
  tokenLength: number
}

const randomIndex = () => Math.floor(Math.random() * SIZE)
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The figures of publishing a changed 131,072-entry Status List Token, beside the library's floor. */
export async function benchTokenStatusList(options: MeasureOptions): Promise<TokenStatusListResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-tsl-'))
  const storage = createSqliteStorage({ path: join(dir, 'keys.db') })
  try {
    await storage.init([SEALED_KEYS])
    const keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, new Keyring(randomMasterKey())) }, 'sealed')
    const { keyRef, publicJwk } = await keys.createKey({ tenantId: 'bench', type: 'P-256' })
    const { did } = await didMethodNamed('key')!.create({ publicJwk })
    const kid = (await didMethodNamed('key')!.resolve(did)).didDocument!.assertionMethod![0] as string
    const signer = portKeySigner(keys, { tenantId: 'bench', keyRef, publicJwk })

    const values = new Uint8Array(SIZE)
    for (let n = 0; n < CHANGED; n++) values[randomIndex()] = n % 2 === 0 ? STATUS_INVALID : STATUS_SUSPENDED
    const theirs = new StatusList([...values], BITS)
    const times = () => {
      const iat = Math.floor(Date.now() / 1000)
      return { iat, exp: iat + 86_400, ttl: 300 }
    }

    let token = ''
    const [publish, floor] = await measurePair(
      {
        label: 'tokenStatusList publish (set, encode, sign)',
        fn: async () => {
          values[randomIndex()] = STATUS_SUSPENDED
          token = await signStatusListToken({ signer, kid, uri: URI, bits: BITS, lst: encodeStatusList(values, BITS), ...times() })
        },
      },
      {
        label: 'tokenStatusList @sd-jwt floor (unsigned)',
        fn: () => {
          theirs.setStatus(randomIndex(), STATUS_SUSPENDED)
          const { header, payload } = createHeaderAndPayload(theirs, { sub: URI, ...times() }, { alg: 'ES256', typ: 'statuslist+jwt', kid })
          return `${b64json(header)}.${b64json(payload)}`
        },
      },
      options,
    )
    return {
      entries: SIZE,
      bits: BITS,
      publish,
      floor,
      p50VsFloor: Number((publish.p50Ms / floor.p50Ms).toFixed(3)),
      tokenLength: token.length,
    }
  } finally {
    await storage.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
