/**
 * The page's script: `didvault/client` in a browser. Bundle and serve this folder with esbuild:
 *
 *   npx esbuild examples/browser/main.ts --bundle --format=esm --outdir=examples/browser \
 *     --servedir=examples/browser --serve=127.0.0.1:5173
 *   didvault serve --cors http://127.0.0.1:5173      # in another terminal: prints the API key
 *
 * then open http://127.0.0.1:5173, enter the key and run. In your project the import is
 * `from 'didvault/client'`.
 */
import { createClient, IdentityError, TransportError } from '../../src/client/index.js'

const form = document.querySelector<HTMLFormElement>('#run')!
const output = document.querySelector<HTMLOutputElement>('#result')!

/** Shows `value` as JSON, with the state tests and people read (`running`, `done`, `failed`). */
function show(state: 'running' | 'done' | 'failed', value: unknown): void {
  output.dataset.state = state
  output.textContent = JSON.stringify(value, null, 2)
}

/** Creates a vault, signs a JSON-LD credential with its first wallet, verifies it. */
async function createSignVerify(baseUrl: string, apiKey: string): Promise<void> {
  const client = createClient({ baseUrl, apiKey })
  const { vault } = await client.createVault({ name: 'from the browser' })
  const issuer = vault.wallets[0].did
  const { jwt } = await client.generateToken({ iss: issuer })
  // Operations acting for a DID take its DID-auth token as well: a client with both headers bound.
  const wallet = client.as({ authorization: `Bearer ${apiKey}`, didAuth: jwt })
  const [signed] = (await wallet.signClaims({ iss: issuer, claims: [{ id: `urn:uuid:${crypto.randomUUID()}` }] })).vcs
  if (!('jsonld' in signed)) throw new Error('expected a JSON-LD credential')
  const [verified] = (await wallet.verifyClaims({ claims: [{ jsonld: signed.jsonld }] })).vcs
  show('done', { verified: verified.verified, checks: verified.checks, vault: vault.id, issuer, credential: signed.jsonld })
}

/** What went wrong, as the client tells it: the service's error body, or no answer at all. */
function describe(err: unknown): unknown {
  if (err instanceof IdentityError) return { error: 'IdentityError', body: err.toJSON() }
  if (err instanceof TransportError) return { error: 'TransportError', message: err.message }
  return { error: String(err) }
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  const data = new FormData(form)
  show('running', 'creating a vault…')
  createSignVerify(String(data.get('api')), String(data.get('key'))).catch((err: unknown) => show('failed', describe(err)))
})
