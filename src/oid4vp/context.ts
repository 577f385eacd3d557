/** What the verifier's operations use of the service (the parts of the domains' contexts they reach). */
import type { CredentialsContext } from '../credentials/context.js'
import type { OneTimeStore } from '../one-time/index.js'
import type { Oid4vpContext } from './module.js'

export type VpContext = Pick<
  CredentialsContext,
  'audit' | 'callers' | 'config' | 'custody' | 'now' | 'registries' | 'resolvers' | 'signers' | 'storage'
> &
  Oid4vpContext & {
    /** Single-use values (answers, response codes, wallet nonces) and the keyed hashes naming records. */
    oneTime: OneTimeStore
    config: { publicUrl?: string }
  }
