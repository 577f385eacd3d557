/**
 * Foreign did:web for tests of `didvault serve` over real https: a loopback server publishes did:web documents behind
 * two test-only TLS terminators (a throw-away CA made by openssl, trusted by the serve process through
 * NODE_EXTRA_CA_CERTS only); `didvault serve` (memory storage, tenant `acme`) runs with `--did-web-origin` naming the
 * first terminator's origin (`allowed`), never the second's (`refused`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ensureBuilt } from './build.js'
import { killAll, spawnNode } from './spawn.js'
import { makeTestCa, tlsTerminator, type TestCa, type TlsTerminator } from './tls.js'

/** The API key of tenant `acme` in the serve process. */
export const DID_WEB_API_KEY = 'key-acme-123456789'
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/

/** The running parts: the CA, both terminators, the serve process's URL; `close` stops them all. */
export interface DidWebOrigins {
  ca: TestCa
  allowed: TlsTerminator
  refused: TlsTerminator
  /** The base URL of `didvault serve`. */
  url: string
  close(): Promise<void>
}

/**
 * Starts the documents server (`serveDocuments` answers its requests; it may read the returned `allowed` terminator,
 * which exists before any request arrives), its terminators and `didvault serve`. Call in `beforeAll`.
 */
export async function startDidWebOrigins(
  serveDocuments: (req: IncomingMessage, res: ServerResponse) => void,
  tmpPrefix: string,
): Promise<DidWebOrigins> {
  ensureBuilt()
  const ca = makeTestCa()
  const documents: Server = createServer(serveDocuments)
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve))
  const backend = (documents.address() as AddressInfo).port
  const allowed = await tlsTerminator(ca, backend)
  const refused = await tlsTerminator(ca, backend)
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix))
  const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', 'memory', '--did-web-origin', allowed.origin], {
    cwd: dir,
    env: { DIDVAULT_API_KEYS: `acme:${DID_WEB_API_KEY}`, NODE_EXTRA_CA_CERTS: ca.caFile },
  })
  const url = (await proc.waitFor(LISTENING))[1]
  return {
    ca,
    allowed,
    refused,
    url,
    async close() {
      await killAll()
      documents.closeAllConnections()
      await Promise.all([allowed.close(), refused.close(), new Promise((resolve) => documents.close(resolve))])
      ca.remove()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
