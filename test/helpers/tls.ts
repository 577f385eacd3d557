/**
 * https on loopback for tests: a throw-away CA made by `openssl` at test time (nothing committed), a
 * server certificate it signs for `localhost` and 127.0.0.1, and a TLS terminator on 127.0.0.1 that
 * passes each connection to a plain loopback port. A client process trusts the CA through
 * `NODE_EXTRA_CA_CERTS` (its `caFile`); nothing turns certificate checks off.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer as createTlsServer } from 'node:tls'

/** A CA and a server certificate it signed (for `localhost` and 127.0.0.1), in a temporary directory. */
export interface TestCa {
  /** The CA certificate (PEM file): give it to a client as `NODE_EXTRA_CA_CERTS`. */
  caFile: string
  key: string
  cert: string
  /** Removes the directory. */
  remove(): void
}

/** Makes a CA and a server certificate with openssl (EC P-256 keys, one day). */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-ca-'))
  const at = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
  openssl('req', '-x509', ...ecKey, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '1', '-subj', '/CN=didvault test CA')
  openssl('req', '-new', ...ecKey, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost')
  writeFileSync(at('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n')
  openssl(
    'x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial',
    '-out', at('server.pem'), '-days', '1', '-extfile', at('san.ext'),
  ) // prettier-ignore
  return {
    caFile: at('ca.pem'),
    key: readFileSync(at('server.key'), 'utf8'),
    cert: readFileSync(at('server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A TLS terminator listening on 127.0.0.1. */
export interface TlsTerminator {
  port: number
  /** `https://localhost:<port>`. */
  origin: string
  /** TCP connections it accepted so far. */
  connections(): number
  close(): Promise<void>
}

/** Terminates TLS on 127.0.0.1 (any free port) with `ca`'s server certificate, each connection piped to `targetPort` on 127.0.0.1. */
export async function tlsTerminator(ca: TestCa, targetPort: number): Promise<TlsTerminator> {
  let connections = 0
  const server = createTlsServer({ key: ca.key, cert: ca.cert }, (socket) => {
    const upstream = connect(targetPort, '127.0.0.1')
    socket.pipe(upstream).pipe(socket)
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
  })
  server.on('connection', () => connections++)
  server.on('tlsClientError', () => undefined)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    origin: `https://localhost:${port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
