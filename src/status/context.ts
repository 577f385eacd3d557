/** What the status operations may be given, and their configuration. */
import type { CredentialsContext } from '../credentials/context.js'
import type { StatusPublisher } from './publisher.js'

export interface StatusConfig {
  /**
   * The public base URL of the service (absolute http(s), no query or fragment): status lists are
   * published at `<publicUrl>/status/<listId>`. Undefined: issuing with status is refused.
   */
  publicUrl?: string
  /** Changes within this interval (ms) are folded into one signature of their list; `Cache-Control: max-age` is at most this. */
  statusPublishIntervalMs: number
  /** Entries per new list (131,072, the W3C minimum; smaller only in tests). */
  statusListSize: number
  /** A Status List Token's lifetime (`exp` − `iat`), ms: the publisher signs it again from half of it on. Default 24 h. */
  statusTokenLifetimeMs: number
  /** A Status List Token's `ttl`, ms (whole seconds). Default 300 s. */
  statusTokenTtlMs: number
}

export interface StatusContext extends CredentialsContext {
  config: CredentialsContext['config'] & StatusConfig
  /** Signs changed lists once their interval is over. */
  statusPublisher: StatusPublisher
}
