/**
 * The floor of the `--workers` bench (bench/workers.ts): a bare `node:http` server on
 * `node:cluster`, `argv[2]` workers on one loopback port, that per request does the signature
 * check didvault does and nothing else, with the primitive didvault uses (`verifyEs256k`:
 * ES256K in OpenSSL against the key, `src/keys/es256k.ts`). `GET` verifies the JWT of the
 * `x-did-auth` header; `POST` the `jwt` of the body's first claim (`{ claims: [{ jwt }] }`).
 * Both answer 200 with a small JSON body when the signature holds (401/422 otherwise). The key
 * is `argv[3]` (public key hex). The primary prints `floor listening on <port>` once every
 * worker listens; SIGTERM stops it and its workers.
 */
import cluster from 'node:cluster'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { publicKeyObject, verifyEs256k } from '../src/keys/es256k.js'

const workers = Number(process.argv[2])
const key = publicKeyObject(process.argv[3] ?? '')

/** Whether the signature of compact JWS `jwt` is the key's. */
function verified(jwt: unknown): boolean {
  if (typeof jwt !== 'string') return false
  const last = jwt.lastIndexOf('.')
  return last > 0 && verifyEs256k(jwt.slice(0, last), Buffer.from(jwt.slice(last + 1), 'base64url'), key)
}

const answer = (res: http.ServerResponse, ok: boolean, status: number) => {
  res.writeHead(ok ? 200 : status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ verified: ok }))
}

if (cluster.isPrimary) {
  let listening = 0
  cluster.on('listening', (_worker, address: AddressInfo) => {
    if (++listening === workers) console.log(`floor listening on ${address.port}`)
  })
  for (let i = 0; i < workers; i++) cluster.fork()
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
    process.exit(0)
  })
} else {
  http
    .createServer((req, res) => {
      if (req.method === 'GET') return answer(res, verified(req.headers['x-did-auth']), 401)
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        let jwt: unknown
        try {
          jwt = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { claims?: Array<{ jwt?: unknown }> }).claims?.[0]?.jwt
        } catch {
          jwt = undefined
        }
        answer(res, verified(jwt), 422)
      })
    })
    .listen(0, '127.0.0.1')
}
