/**
 * Another Node service calling `didvault serve` through the typed client `didvault/client`:
 * a vault, a DID-auth token, a JSON-LD credential signed and verified, an error as the service
 * answers it, and a credential deleted with the Access Token JWT.
 *
 * Run: didvault serve                      (prints an API key on its first start)
 *      DIDVAULT_API_KEY=<key> node --import tsx examples/client-node.ts
 * DIDVAULT_URL says where the service is (default http://127.0.0.1:8080).
 *
 * In your project the import is `from 'didvault/client'`.
 */
import { createClient, IdentityError } from '../src/client/index.js'

const apiKey = process.env.DIDVAULT_API_KEY
if (!apiKey) {
  console.error('set DIDVAULT_API_KEY to a key of the service (didvault serve prints one on its first start)')
  process.exit(2)
}
const client = createClient({ baseUrl: process.env.DIDVAULT_URL ?? 'http://127.0.0.1:8080', apiKey })

const { vault } = await client.createVault({ name: 'from another service', hierarchy: 'BIP44' })
const issuer = vault.wallets[0].did
console.log(`vault created: ${vault.id} (${vault.keyManagement}, ${vault.hierarchy})`)
console.log(`issuer: ${issuer}`)

// Operations acting for a DID also take its DID-auth token: bind both headers once.
const { jwt } = await client.generateToken({ iss: issuer, expiresIn: 600_000 })
const wallet = client.as({ authorization: `Bearer ${apiKey}`, didAuth: jwt })

const [signed] = (await wallet.signClaims({ iss: issuer, claims: [{ alias: 'membership' }] })).vcs
if (!('jsonld' in signed)) throw new Error('expected a JSON-LD credential')
console.log(`credential signed: ${signed.id}`)
const [verified] = (await wallet.verifyClaims({ claims: [{ jsonld: signed.jsonld }] })).vcs
console.log(`verified: ${verified.verified} (${verified.checks.map((c) => `${c.check} ${c.verified ? 'ok' : 'failed'}`).join(', ')})`)

// Errors are the service's IdentityError, with its status, type and message.
const refused = await client.generateToken({ iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' }).catch((err: unknown) => err)
if (refused instanceof IdentityError) console.log(`refused: ${refused.statusCode} ${refused.errorType}`)

// Deleting credentials takes the Access Token JWT: a DID-auth token of the credential's DID as the Bearer token.
const [stored] = (await wallet.storeClaims({ claims: [{ jsonld: signed.jsonld }] })).vcs
const { jwt: claimToken } = await client.generateToken({ iss: signed.id })
const deleted = await client.as({ authorization: `Bearer ${claimToken}` }).deleteClaims({ ids: [stored._id] })
console.log(`stored and deleted: ${deleted.vcs.length} (errors: ${deleted.errors.length})`)
console.log('done')
