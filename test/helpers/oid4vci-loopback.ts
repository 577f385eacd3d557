/**
 * An OID4VCI issuer in this process for the protocol tests: an `IdentityService` on a SQLite file in a fresh temporary
 * folder, tenants `TENANT_A` and `TENANT_B`, `publicUrl` {@link ISSUER_PUBLIC_URL}, its router and well-known router on
 * a loopback HTTP server; {@link LoopbackIssuer.loopback} is `fetch` with https://issuer.test sent to that server (and any
 * other host refused, so a test sees a request to a host a wallet names).
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import type { IdentityServiceOptions } from '../../src/service/identity-service.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createRouter, createWellKnownRouter } from '../../src/http/router.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { TENANT_A, TENANT_B } from './harness.js'

/** The issuer's origin, as wallets see it. */
export const ISSUER_ORIGIN = 'https://issuer.test'
/** The service's `publicUrl`: the router is mounted at `/identity`. */
export const ISSUER_PUBLIC_URL = `${ISSUER_ORIGIN}/identity`

/** A running loopback issuer. */
export interface LoopbackIssuer {
  service: IdentityService
  storage: StorageAdapter
  /** The temporary folder of the SQLite file (`vault.db`) and its journal files. */
  dir: string
  /** The bytes of the SQLite file and its WAL as they are now (latin1), to look for secrets that must not be there. */
  databaseBytes(): string
  /** `fetch`, with requests to {@link ISSUER_ORIGIN} sent to the loopback server; a request to any other URL throws. */
  loopback: typeof fetch
  /** Closes the server and the service and removes the folder. */
  close(): Promise<void>
}

/** Starts a loopback issuer with the service options given (`oid4vci`, `now`); `prefix` names its temporary folder. */
export async function loopbackIssuer(prefix: string, options: Pick<IdentityServiceOptions, 'oid4vci' | 'now'>): Promise<LoopbackIssuer> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const app = express()
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const storage = createSqliteStorage({ path: join(dir, 'vault.db') })
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TENANT_A]: 'tenant-a', [TENANT_B]: 'tenant-b' }),
    publicUrl: ISSUER_PUBLIC_URL,
    ...options,
  })
  app.use(createWellKnownRouter(service))
  app.use('/identity', createRouter(service))
  const loopback: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input)
    if (!url.startsWith(ISSUER_ORIGIN)) throw new Error(`unexpected request to ${url}`)
    return fetch(base + url.slice(ISSUER_ORIGIN.length), init)
  }
  const databaseBytes = () =>
    ['vault.db', 'vault.db-wal']
      .map((file) => join(dir, file))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('')
  const close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { service, storage, dir, databaseBytes, loopback, close }
}
