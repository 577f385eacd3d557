/** `DIDVAULT_API_KEYS`: the API keys a start of `serve` registers. */
import { ApiKeyRevokedError, type ApiKeyTenants } from '../auth/api-keys.js'
import type { Logger } from '../observability/logger.js'

/** Parses `DIDVAULT_API_KEYS` (`tenant:key,tenant:key`). */
export function parseApiKeys(value: string): Array<{ tenant: string; key: string }> {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':')
      if (at <= 0 || at === pair.length - 1) throw new Error('DIDVAULT_API_KEYS must look like tenant:key,tenant:key')
      return { tenant: pair.slice(0, at), key: pair.slice(at + 1) }
    })
}

/** The keys of `DIDVAULT_API_KEYS`, none when unset. */
export const envApiKeys = (env: NodeJS.ProcessEnv) => (env.DIDVAULT_API_KEYS ? parseApiKeys(env.DIDVAULT_API_KEYS) : [])

/**
 * Registers the keys of `DIDVAULT_API_KEYS` (idempotent). A key revoked before stays refused: the
 * start goes on, with a warning naming its id and tenant (never the key).
 */
export async function registerEnvApiKeys(apiKeys: ApiKeyTenants, env: NodeJS.ProcessEnv, logger: Logger): Promise<void> {
  for (const { tenant, key } of envApiKeys(env)) {
    try {
      await apiKeys.add(tenant, key)
    } catch (err) {
      if (!(err instanceof ApiKeyRevokedError)) throw err
      logger.warn(
        { keyId: err.keyId, tenant },
        `didvault: DIDVAULT_API_KEYS lists API key ${err.keyId} (tenant "${tenant}"), which was revoked: it stays refused; ` +
          'remove it from DIDVAULT_API_KEYS',
      )
    }
  }
}
