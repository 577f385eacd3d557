/**
 * The operator's login page of the authorization code flow under `serve` (docs/oid4vci.md, *The login assertion*),
 * played by a loopback HTTP server for end-to-end tests: on `GET /login?request=…&issuer=…&credential_configuration_ids=…`
 * it "logs the user in" (no form), signs an assertion with jose (ES256, a key pair made here; its public JWK goes in the
 * serve config's `loginAssertionKeys`) and redirects the browser to `<issuer>/authorize/return?assertion=…`. Test-only.
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as jose from 'jose'

export interface LoginPage {
  /** `http://127.0.0.1:<port>/login`: the serve config's `loginUrl`. */
  url: string
  /** The public JWK of the assertion key (with `kid`): the serve config's `loginAssertionKeys`. */
  publicJwk: jose.JWK
  /** The `issuer` parameter of each visit, in order. */
  visits: string[]
  close(): Promise<void>
}

/** Starts the page; `claimsOf(id)` are the claims the user gets for each configuration asked for. */
export async function startLoginPage(
  claimsOf: (configurationId: string) => Record<string, unknown>,
  subject = 'user-1',
): Promise<LoginPage> {
  const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: 'login-1' }
  const visits: string[] = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const request = url.searchParams.get('request')
    const issuer = url.searchParams.get('issuer')
    const ids = (url.searchParams.get('credential_configuration_ids') ?? '').split(' ').filter(Boolean)
    if (req.method !== 'GET' || url.pathname !== '/login' || !request || !issuer) {
      res.writeHead(404).end()
      return
    }
    visits.push(issuer)
    const claims = Object.fromEntries(ids.map((id) => [id, claimsOf(id)]))
    new jose.SignJWT({ request, sub: subject, claims, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'login-1' })
      .setAudience(issuer)
      .setIssuedAt()
      .setExpirationTime('2m')
      .sign(privateKey)
      .then((assertion) => res.writeHead(302, { location: `${issuer}/authorize/return?assertion=${assertion}` }).end())
      .catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/login`,
    publicJwk,
    visits,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  }
}
