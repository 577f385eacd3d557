/**
 * The master key in an HSM (`--only hsm-master`), on a throw-away SoftHSM2 token and SQLite: VC-JWT signing with an ECS
 * (sealed) wallet through the service when the master key is in the token (the data key unwrapped once at start) ÷ the
 * same with a file master key, interleaved; and what a signature would cost if the data key were unwrapped through the
 * token for each one instead (C_DecryptAsync of the wrapped data key, then the same signature), interleaved with both —
 * with the bare unwrap rate. Each figure carries `ratio`, its ops/s ÷ the file master key's (./relative.ts). docs/keys.md
 * *The master key in an HSM* says why the data key is kept for the process's life.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IdentityService, randomMasterKey, staticTenants, type BoundIdentityService } from '../src/index.js'
import { KEYRING_RECORD, type KeyringMeta } from '../src/custody/keyring-store.js'
import { unwrapDataKey, type HsmMasterKey } from '../src/custody/hsm-master-key.js'
import { pkcs11 } from '../src/keys/backends/pkcs11/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { startSoftHsm } from '../test/helpers/softhsm.js'
import type { MeasureOptions } from './measure.js'
import { measureRelative, type Relative } from './relative.js'

const API_KEY = 'bench-hsm-master-0123456789'

/** Each measured interleaved with the others; `ratio`: its ops/s ÷ `fileMasterKey`'s. */
export interface HsmMasterKeyBenchResults {
  /** JWT VC sign through the service, ECS wallet, file master key: the base. */
  fileMasterKey: Relative
  /** The same, master key in the token (data key unwrapped once at start); `ratio` the figure reported. */
  hsmMasterKey: Relative
  /** The same signature preceded by an unwrap of the data key through the token (C_DecryptAsync), per signature. */
  unwrapPerSignature: Relative
  /** The unwrap alone (C_DecryptAsync of the 32-byte data key with AES-256-GCM in the token). */
  bareUnwrap: Relative
}

async function signer(service: IdentityService): Promise<() => Promise<unknown>> {
  const api: BoundIdentityService = service.as({ authorization: `Bearer ${API_KEY}` })
  const { did } = (await api.generateWallet({})).wallet
  const as = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: (await api.generateToken({ iss: did, expiresIn: 3_600_000 })).jwt })
  return () => as.signClaims({ iss: did, format: 'JWT', claims: [{ id: `urn:uuid:${randomUUID()}`, payload: { n: Math.random() } }] })
}

export async function benchHsmMasterKey(options: MeasureOptions): Promise<HsmMasterKeyBenchResults> {
  const hsm = startSoftHsm('didvault-bench-master')
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-hsm-master-'))
  const module = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin, sessions: 4 })
  const tenants = staticTenants({ [API_KEY]: 'bench' })
  const setting: HsmMasterKey = { hsm: module }
  const fileStorage = createSqliteStorage({ path: join(dir, 'file.db') })
  const hsmStorage = createSqliteStorage({ path: join(dir, 'hsm.db') })
  const onFile = await IdentityService.create({ storage: fileStorage, masterKey: randomMasterKey(), tenants })
  const onHsm = await IdentityService.create({ storage: hsmStorage, masterKey: setting, tenants })
  try {
    const signOnFile = await signer(onFile)
    const signOnHsm = await signer(onHsm)
    const wrapped = (await hsmStorage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id))!.hsmWrapped![0]
    const unwrap = async () => (await unwrapDataKey(setting, wrapped, 'bench')).fill(0)
    return await measureRelative(
      {
        fileMasterKey: { label: 'sqlite: JWT VC sign, ECS wallet, file master key', fn: signOnFile },
        hsmMasterKey: { label: 'sqlite: JWT VC sign, ECS wallet, master key in SoftHSM2 (interleaved)', fn: signOnHsm },
        unwrapPerSignature: {
          label: 'sqlite: JWT VC sign, ECS wallet, data key unwrapped through SoftHSM2 per signature (interleaved)',
          fn: async () => {
            await unwrap()
            return signOnHsm()
          },
        },
        bareUnwrap: { label: 'SoftHSM2: C_DecryptAsync unwrap of the data key (interleaved)', fn: unwrap },
      },
      'fileMasterKey',
      options,
    )
  } finally {
    await onFile.close()
    await onHsm.close()
    await module.close()
    rmSync(dir, { recursive: true, force: true })
    hsm.stop()
  }
}
