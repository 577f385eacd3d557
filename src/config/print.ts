/**
 * `didvault config print`: the effective settings as a config file would hold them, with what
 * may carry a secret masked — the password of a storage URL, and the parts of `rpcUrl`s and
 * resolver URLs where providers put keys (credentials, path segments and query values, as the
 * error log's redaction finds them). The master key is never a setting.
 */
import { secretPartsOfUrl } from '../service/error-log.js'
import type { EffectiveConfig } from './effective.js'

const MASK = '***'
/** Query parameters masked whatever their length. */
const SECRET_PARAM = /pass|secret|key|token/i

/**
 * `url` with its password and query parameters named like secrets masked and, with `keyParts`
 * (URLs of providers: `rpcUrl`s, resolvers), its other parts that may be a key too; a value that
 * is not a `scheme://` URL (e.g. `sqlite:<path>`) as it is. A value that does not parse (a typo
 * in the port) is masked whole but for its scheme.
 */
export function maskUrl(url: string, keyParts = true): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return maskUnparsed(url)
  }
  if (!url.includes('//')) return url
  const secret = new Set(keyParts ? secretPartsOfUrl(url) : [])
  const mask = (part: string) => (secret.has(part) || secret.has(safeDecode(part)) ? MASK : part)
  if (parsed.password !== '') parsed.password = MASK
  if (parsed.username !== '' && secret.has(parsed.username)) parsed.username = MASK
  const path = parsed.pathname.split('/').map(mask).join('/')
  const query = [...parsed.searchParams].map(([name, value]) => [name, SECRET_PARAM.test(name) ? MASK : mask(value)])
  const auth = parsed.username === '' ? '' : `${parsed.username}${parsed.password === '' ? '' : `:${parsed.password}`}@`
  const search =
    query.length === 0 ? '' : `?${query.map(([name, value]) => `${name}=${value === MASK ? MASK : encodeURIComponent(value)}`).join('&')}`
  return `${parsed.protocol}//${auth}${parsed.host}${path}${search}`
}

/**
 * A URL that does not parse, masked: only its scheme is kept. Its parts cannot be told apart (a
 * password may hold any character), so none can be shown safely. A name without `//` or `@`
 * (`memory`) has no parts to hide.
 */
function maskUnparsed(url: string): string {
  if (!url.includes('//') && !url.includes('@')) return url
  const scheme = /^[a-z][a-z0-9+.-]*:(\/\/)?/i.exec(url)?.[0] ?? ''
  return `${scheme}${MASK}`
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The effective settings in the config file's shape (and key order), secrets masked. */
export function printableConfig(config: EffectiveConfig): Record<string, unknown> {
  const {
    host,
    port,
    storage,
    storageSettings,
    workers,
    cors,
    publicUrl,
    statusListOrigins,
    didWebOrigins,
    contexts,
    previousMasterKeyFiles,
    networks,
    resolvers,
    ...sections
  } = config
  return {
    host,
    port,
    storage: storageSettings === undefined ? maskUrl(storage, false) : { url: maskUrl(storage, false), ...storageSettings },
    workers,
    cors,
    ...(publicUrl !== undefined && { publicUrl }),
    statusListOrigins,
    didWebOrigins,
    contexts: Object.fromEntries(contexts.map(({ url, file }) => [url, file])),
    previousMasterKeyFiles,
    ...(networks && { networks: networks.map((n) => (n.rpcUrl === undefined ? n : { ...n, rpcUrl: maskUrl(n.rpcUrl) })) }),
    ...(resolvers && { resolvers: Object.fromEntries(Object.entries(resolvers).map(([name, url]) => [name, maskUrl(url)])) }),
    ...sections,
  }
}
