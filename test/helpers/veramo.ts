/**
 * A Veramo 7 agent as an outside holder would run it: did:ethr identifiers made by
 * `@veramo/did-provider-ethr` (a compressed public key: `did:ethr:<network>:0x02…`/`0x03…`),
 * VC-JWTs issued by `@veramo/credential-jwt` (did-jwt-vc, ES256K), and DID-auth tokens signed
 * through the agent's key manager the way its JWT provider wraps a key (did-jwt, ES256K). The
 * agent never reaches a chain: making identifiers and signing need none. VP-JWTs are made and
 * verified by `@veramo/credential-w3c`'s `createVerifiablePresentation`/`verifyPresentation`
 * (proofFormat `jwt`); verifying resolves DIDs through the agent's `resolveDid`, which a resolver
 * given to {@link veramoAgent} answers (the service's own, say: it knows the test's registry).
 */
import { createJWT } from 'did-jwt'
import type { Resolvable } from 'did-resolver'
import {
  createAgent,
  type IAgentPlugin,
  type IDIDManager,
  type IKeyManager,
  type ICredentialPlugin,
  type IResolver,
  type TAgent,
} from '@veramo/core'
import { CredentialPlugin } from '@veramo/credential-w3c'
import { CredentialProviderJWT } from '@veramo/credential-jwt'
import { type AbstractIdentifierProvider, DIDManager, MemoryDIDStore } from '@veramo/did-manager'
import { EthrDIDProvider } from '@veramo/did-provider-ethr'
import { KeyManager, MemoryKeyStore, MemoryPrivateKeyStore } from '@veramo/key-manager'
import { KeyManagementSystem } from '@veramo/kms-local'
import { SigningKey, computeAddress } from 'ethers'

/** A Veramo agent of {@link createVeramoAgent}. */
export type VeramoAgent = TAgent<IDIDManager & IKeyManager & ICredentialPlugin & IResolver>

/** A verifier's binding as Veramo names it. */
export interface VeramoBinding {
  challenge?: string
  domain?: string
}

/** An identifier the agent made, and what it signs. */
export interface VeramoIdentity {
  /** As Veramo makes it: `did:ethr:<network>:0x<compressed key>`. */
  did: string
  /** The same key's DID in address form (EIP-55) and in uncompressed public-key form. */
  addressDid: string
  uncompressedDid: string
  /** The compressed key, 0x-hex. */
  publicKey: string
  /** A VC-JWT the agent issues (`createVerifiableCredential`, proofFormat `jwt`). */
  issue(credential: { credentialSubject: Record<string, unknown>; id?: string; type?: string[] }): Promise<string>
  /** A DID-auth token signed by the identifier's key, naming `iss` (default: `did`). */
  token(options?: { iss?: string; aud?: string; expIn?: number }): Promise<string>
  /** A VP-JWT of `vcs` the agent signs (`createVerifiablePresentation`, proofFormat `jwt`) bound as asked. */
  present(vcs: string[], binding?: VeramoBinding): Promise<string>
}

/** What Veramo's `verifyPresentation` says of a VP-JWT. */
export interface VeramoVerdict {
  verified: boolean
  error?: { message?: string; errorCode?: string }
}

/** The `resolveDid` of an agent, answered by `resolver`. */
function resolverPlugin(resolver: Resolvable): IAgentPlugin {
  return { methods: { resolveDid: ({ didUrl }: { didUrl: string }) => resolver.resolve(didUrl) } }
}

/**
 * A Veramo 7 agent as holders run it: keys in memory under a local KMS, a DID manager over `providers` (`did:<method>`
 * → provider; `defaultProvider` when none is named), VC-JWTs by its JWT credential provider, and, given a `resolver`,
 * `resolveDid` answered by it.
 */
export function createVeramoAgent(options: {
  providers: Record<string, AbstractIdentifierProvider>
  defaultProvider: string
  resolver?: Resolvable
}): VeramoAgent {
  return createAgent({
    plugins: [
      new KeyManager({ store: new MemoryKeyStore(), kms: { local: new KeyManagementSystem(new MemoryPrivateKeyStore()) } }),
      new DIDManager({ store: new MemoryDIDStore(), defaultProvider: options.defaultProvider, providers: options.providers }),
      new CredentialPlugin([new CredentialProviderJWT()]),
      ...(options.resolver === undefined ? [] : [resolverPlugin(options.resolver)]),
    ],
  })
}

/** A Veramo agent with an ethr provider for `network` (chain `chainId`). */
export function veramoAgent(
  network = 'dev',
  chainId = 1337,
  resolver?: Resolvable,
): {
  create(): Promise<VeramoIdentity>
  /** Veramo's `verifyPresentation` of a VP-JWT with the verifier's binding (needs `resolver`). */
  verifyPresentation(jwt: string, binding?: VeramoBinding): Promise<VeramoVerdict>
} {
  const provider = `did:ethr:${network}`
  const agent = createVeramoAgent({
    providers: { [provider]: new EthrDIDProvider({ defaultKms: 'local', networks: [{ name: network, chainId }] }) },
    defaultProvider: provider,
    resolver,
  })
  return {
    async create() {
      const identifier = await agent.didManagerCreate({ provider })
      const key = identifier.keys[0]
      const publicKey = SigningKey.computePublicKey(`0x${key.publicKeyHex}`, true)
      const prefix = identifier.did.slice(0, identifier.did.lastIndexOf(':') + 1)
      const signer = (data: string | Uint8Array) => agent.keyManagerSign({ keyRef: key.kid, data: data as string, algorithm: 'ES256K' })
      return {
        did: identifier.did,
        addressDid: `${prefix}${computeAddress(publicKey)}`,
        uncompressedDid: `${prefix}${SigningKey.computePublicKey(publicKey, false)}`,
        publicKey,
        async issue(credential) {
          const issued = { ...credential, issuer: { id: identifier.did } }
          const vc = await agent.createVerifiableCredential({ credential: issued, proofFormat: 'jwt' })
          return vc.proof.jwt as string
        },
        async token(options = {}) {
          const now = Math.floor(Date.now() / 1000)
          const payload = { iat: now, exp: now + (options.expIn ?? 600), aud: options.aud ?? 'didvault' }
          return createJWT(payload, { issuer: options.iss ?? identifier.did, signer, alg: 'ES256K' })
        },
        async present(vcs, binding = {}) {
          const presentation = { holder: identifier.did, verifiableCredential: vcs }
          const vp = await agent.createVerifiablePresentation({ presentation, proofFormat: 'jwt', ...binding })
          return vp.proof.jwt as string
        },
      }
    },
    async verifyPresentation(jwt, binding = {}) {
      return agent.verifyPresentation({ presentation: jwt, ...binding })
    },
  }
}
