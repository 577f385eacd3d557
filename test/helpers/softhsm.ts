/**
 * A throw-away SoftHSM2 token for one test file: a temp directory with its own `softhsm2.conf`
 * (file object store, tokens under `<dir>/tokens`), `SOFTHSM2_CONF` set in this process before the
 * module is loaded (SoftHSM reads it once per process, so one configuration per test FILE), and a
 * token initialized with `softhsm2-util --init-token --free`. `stop()` removes the directory. And what tests ask the
 * token directly: the object of a key by its CKA_ID, and whether its private key can be read.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pkcs11js from 'pkcs11js'
import type { Pkcs11Token } from '../../src/keys/backends/pkcs11/index.js'

/** Debian's SoftHSM2 module. */
export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so'

export interface SoftHsm {
  /** The PKCS#11 module to load. */
  module: string
  tokenLabel: string
  /** The user PIN. */
  pin: string
  soPin: string
  /** The `softhsm2.conf` of this token (`SOFTHSM2_CONF`). */
  conf: string
  /** The directory holding the token's files (`directories.tokendir`): move it away to take the token out. */
  tokenDir: string
  /** The environment a child process loading the module needs. */
  env: NodeJS.ProcessEnv
  stop(): void
}

/** Whether SoftHSM2 and its tools are installed (`.ci/run` installs them). */
export const softHsmAvailable = (): boolean => existsSync(SOFTHSM_MODULE) && commandExists('softhsm2-util')

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

let started: string | undefined

/**
 * Makes a SoftHSM2 configuration and a fresh token. A second call in one process initializes another token in the same
 * configuration (the module read the first `SOFTHSM2_CONF`).
 */
export function startSoftHsm(label = `didvault-${randomBytes(4).toString('hex')}`): SoftHsm {
  let dir: string
  if (started === undefined) {
    dir = mkdtempSync(join(tmpdir(), 'didvault-softhsm-'))
    mkdirSync(join(dir, 'tokens'))
    writeFileSync(
      join(dir, 'softhsm2.conf'),
      `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
    )
    started = dir
    process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf')
  } else dir = started
  const conf = join(dir, 'softhsm2.conf')
  const pin = randomBytes(6).toString('hex')
  const soPin = randomBytes(6).toString('hex')
  const env = { ...process.env, SOFTHSM2_CONF: conf }
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin], { env, stdio: 'ignore' })
  return {
    module: SOFTHSM_MODULE,
    tokenLabel: label,
    pin,
    soPin,
    conf,
    tokenDir: join(dir, 'tokens'),
    env,
    stop: () => {
      rmSync(dir, { recursive: true, force: true })
      if (started === dir) started = undefined
    },
  }
}

/** The kinds of object a key pair has in the token. */
export type KeyObjectClass = 'private' | 'public'

/** The handle of key `keyId`'s (CKA_ID, hex) private or public object in the token, or undefined when there is none. */
export function tokenObject(token: Pkcs11Token, keyId: string, kind: KeyObjectClass = 'private'): Promise<Buffer | undefined> {
  return token.withSession('test', (p, session) => {
    p.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: kind === 'private' ? pkcs11js.CKO_PRIVATE_KEY : pkcs11js.CKO_PUBLIC_KEY },
      { type: pkcs11js.CKA_ID, value: Buffer.from(keyId, 'hex') },
    ])
    try {
      return p.C_FindObjects(session, 1)[0]
    } finally {
      p.C_FindObjectsFinal(session)
    }
  })
}

/**
 * Whether the token lets the private key with CKA_ID `keyId` be read out: not CKA_SENSITIVE, or CKA_EXTRACTABLE, or
 * its CKA_VALUE answered. Throws when the token has no such key.
 */
export async function privateKeyReadable(token: Pkcs11Token, keyId: string): Promise<boolean> {
  const handle = await tokenObject(token, keyId)
  if (!handle) throw new Error(`no private key ${keyId} in the token`)
  return token.withSession('test', (p, session) => {
    const [sensitive, extractable] = p.C_GetAttributeValue(session, handle, [
      { type: pkcs11js.CKA_SENSITIVE },
      { type: pkcs11js.CKA_EXTRACTABLE },
    ])
    if (!Buffer.isBuffer(sensitive.value) || sensitive.value[0] !== 1) return true
    if (!Buffer.isBuffer(extractable.value) || extractable.value[0] !== 0) return true
    try {
      p.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_VALUE }])
      return true
    } catch {
      return false
    }
  })
}
