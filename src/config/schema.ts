/**
 * The `didvault serve` config file (JSON or YAML), as one zod schema: top-level keys named like
 * the `serve` flags, sections for what has no flag. Every object is strict (an unknown key is an
 * error naming its path), every value is checked with the checkers the flags and the embedded
 * API use. The JSON Schema (`schemas/didvault.config.schema.json`) and the settings table of
 * docs/operations.md are generated from it: each setting's `meta` carries its description, flag
 * (`x-flag`), environment variable (`x-env`), embedded option (`x-embedded`) and default.
 */
import { z } from 'zod'
import { eip55Address } from '../did/methods/ethr/index.js'
import { canonicalOrigin } from '../http/cors.js'
import { DEFAULT_DEPTH, DEPTH_MARGIN, MAX_DEPTH, depthMarginProblem } from '../operations/request-bounds.js'
import { DEFAULT_JSONLD_LIMITS, JSONLD_CEILINGS } from '../proofs/jsonld/bounds.js'
import { isContextUrl } from '../proofs/jsonld/contexts.js'
import { publicBaseUrl } from '../status/list-url.js'
import { checkedOrigins } from '../net/allowed-origins.js'
import { TENANT_ID } from '../auth/api-keys.js'
import { OID4VCI_DEFAULTS } from '../oid4vci/module.js'
import { OID4VP_DEFAULTS } from '../oid4vp/module.js'
import { createCredentialConfiguration, issuerSlug } from '../oid4vci/schemas.js'

/** The most `workers`. */
export const MAX_WORKERS = 64
/** The longest drain deadline, ms (an hour). */
export const MAX_DRAIN_MS = 3_600_000
/** The drain deadline when none is set, ms. */
export const DEFAULT_DRAIN_MS = 10_000

/** What the generated docs table shows of a setting, besides its description. */
interface SettingMeta {
  flag?: string
  env?: string
  embedded?: string
  default?: unknown
}

/** `schema` described for the JSON Schema and the docs table. */
function setting<T extends z.ZodType>(schema: T, description: string, meta: SettingMeta = {}): T {
  const { flag, env, embedded, default: fallback } = meta
  return schema.meta({
    description,
    ...(flag !== undefined && { 'x-flag': flag }),
    ...(env !== undefined && { 'x-env': env }),
    ...(embedded !== undefined && { 'x-embedded': embedded }),
    ...(fallback !== undefined && { default: fallback }),
  })
}

/**
 * A string checked (and normalized) by one of the service's checkers, whose `TypeError` becomes the issue's message
 * (without the `prefix` naming the setting: the issue's path names it).
 */
const checkedString = (check: (value: string) => string, prefix = '') =>
  z.string().transform((value, ctx) => {
    try {
      return check(value)
    } catch (err) {
      const message = (err as Error).message
      ctx.addIssue({ code: 'custom', message: message.startsWith(prefix) ? message.slice(prefix.length) : message })
      return z.NEVER
    }
  })

const port = z.number().int().min(0).max(65535)
const httpUrl = z.url({ protocol: /^https?$/ })
const origin = checkedString(canonicalOrigin)
const statusListOrigin = checkedString((value) => checkedOrigins([value])[0], 'statusListOrigins: ')
const didWebOrigin = checkedString((value) => checkedOrigins([value], 'didWebOrigins')[0], 'didWebOrigins: ')
const STORAGE = /^(memory|sqlite:.+|mongodb(\+srv)?:\/\/.+|postgres(ql)?:\/\/.+)$/s
const RESOLVER_NAME = /^[A-Za-z0-9_.-]{1,50}$/
const NETWORK_NAME = /^[a-zA-Z0-9_.-]{1,50}$/
const BODY_SIZE = /^\d+(\.\d+)?\s*(b|kb|mb|gb)$/i

const network = z
  .object({
    name: setting(
      z.string().regex(NETWORK_NAME, 'must be 1-50 letters, digits, _ . -'),
      'Network name used in DIDs (did:ethr:<name>:0x…).',
    ),
    chainId: setting(z.number().int().positive(), 'EIP-155 chain id.'),
    rpcUrl: setting(httpUrl.optional(), 'JSON-RPC endpoint of the on-chain registry (may carry a provider key: masked by config print).'),
    registry: setting(
      z
        .string()
        .refine((value) => eip55Address(value) !== undefined, 'must be an address (0x + 40 hex, a valid checksum if mixed case)')
        .optional(),
      'EthereumDIDRegistry (ERC-1056) contract address; with rpcUrl, DIDs of this network live on chain.',
    ),
    apiUrl: setting(httpUrl.optional(), 'Public name callers give as walletConfig.apiUrl (default: the origin of rpcUrl).'),
    gasPayerKeyFile: setting(
      z.string().min(1).optional(),
      'File holding the hex private key of the account paying registry gas (mode 0600). Without it the on-chain registry is read-only.',
      { embedded: 'onchain[name].gasPayer' },
    ),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.rpcUrl === undefined) !== (value.registry === undefined))
      ctx.addIssue({ code: 'custom', message: 'rpcUrl and registry go together (both for an on-chain network, neither for embedded)' })
    if (value.gasPayerKeyFile !== undefined && value.rpcUrl === undefined)
      ctx.addIssue({ code: 'custom', path: ['gasPayerKeyFile'], message: 'only an on-chain network (rpcUrl, registry) has a gas payer' })
  })

/** Why a `scheme://` storage URL is refused when it does not parse (never echoing it: it may hold a password). */
export const UNPARSABLE_STORAGE_URL = 'does not parse as a URL: check the port, and percent-encode special characters of a user or password'

const storageUrl = z
  .string()
  .regex(STORAGE, 'must be memory, sqlite:<path>, postgres://user@host/db or mongodb://host/db')
  .refine((url) => !url.includes('//') || URL.canParse(url), UNPARSABLE_STORAGE_URL)
const STORAGE_DESCRIPTION =
  'Where records live; a relative sqlite: path is resolved against the config file. A password here is masked by config print.'

/** `storage` as an object: the URL and the settings that have no place in it. */
const storageObject = z
  .object({
    url: setting(storageUrl, STORAGE_DESCRIPTION),
    startTimeoutMs: setting(
      z.number().int().min(0).max(86_400_000).optional(),
      'How long a start waits for a storage that is unavailable (refused connection, server starting or stopping), ' +
        'trying again with backoff, before exiting 1 naming it. A --workers worker started later waits as long as it takes.',
      { default: 60_000 },
    ),
    preparedStatements: setting(
      z.boolean().optional(),
      'PostgreSQL: send statements prepared (parsed once per connection). false behind PgBouncer before 1.21 in ' +
        'transaction mode. ?preparedStatements= in the URL wins.',
      { embedded: 'createPostgresStorage({ preparedStatements })', default: true },
    ),
    synchronous: setting(
      z.enum(['full', 'normal']).optional(),
      'SQLite: full (an acknowledged write survives a power loss) or normal (it survives a crash of the process). ' +
        '?synchronous= in the URL wins.',
      { embedded: 'createSqliteStorage({ synchronous })', default: 'full' },
    ),
  })
  .strict()

/** The settings of a config file's `storage` besides its URL. */
export type StorageFileSettings = Omit<z.output<typeof storageObject>, 'url'>

/** The URL and the other settings of a config file's `storage` (a string is the URL alone). */
export function splitStorage(storage: string | z.output<typeof storageObject>): { url: string; settings: StorageFileSettings } {
  if (typeof storage === 'string') return { url: storage, settings: {} }
  const { url, ...settings } = storage
  return { url, settings }
}

const jsonldBound = (name: keyof typeof JSONLD_CEILINGS, description: string, fallback: number) =>
  setting(z.number().int().min(1).max(JSONLD_CEILINGS[name]).optional(), description, {
    embedded: `limits.jsonld.${name}`,
    default: fallback,
  })

const within = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max

const limits = z
  .object({
    depth: setting(
      z.number().int().min(1).max(MAX_DEPTH).optional(),
      'Deepest nesting of objects and arrays in any request (the body is level 1); deeper bodies get 422 before they are ' +
        `parsed. At least limits.jsonld.maxDepth + ${DEPTH_MARGIN}.`,
      { embedded: 'limits.depth', default: DEFAULT_DEPTH },
    ),
    body: setting(
      z.union([z.number().int().positive(), z.string().regex(BODY_SIZE, 'must be bytes or a size like "1mb"')]).optional(),
      'Largest JSON request body (bytes, or "512kb", "1mb"…); larger bodies get 413.',
      { embedded: 'RouterOptions.bodyLimit', default: '1mb' },
    ),
    batch: setting(z.number().int().positive().optional(), 'Most items of one batch request.', { embedded: 'limits.batch', default: 1000 }),
    jsonld: z
      .object({
        maxNodes: jsonldBound('maxNodes', 'Most values in one JSON-LD document.', 10_000),
        maxArrayLength: jsonldBound('maxArrayLength', 'Most elements of one JSON-LD array.', 1_000),
        maxStringLength: jsonldBound('maxStringLength', 'Longest JSON-LD string or key (UTF-16 units).', 262_144),
        maxDepth: jsonldBound('maxDepth', 'Deepest JSON-LD nesting.', 32),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    // Only between two depths that are each valid (a wrong one has its own issue).
    const depth = value.depth ?? DEFAULT_DEPTH
    const jsonldDepth = value.jsonld?.maxDepth ?? DEFAULT_JSONLD_LIMITS.maxDepth
    if (!within(depth, MAX_DEPTH) || !within(jsonldDepth, JSONLD_CEILINGS.maxDepth)) return
    const problem = depthMarginProblem(depth, jsonldDepth)
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['depth'], message: problem })
  })

const tokens = z
  .object({
    audience: setting(z.string().min(1).max(200).optional(), '`aud` of the DID-auth tokens this service issues and accepts.', {
      embedded: 'audience',
      default: 'didvault',
    }),
    defaultLifetimeMs: setting(z.number().int().positive().optional(), 'Default DID-auth token lifetime, ms.', {
      embedded: 'limits.tokenDefaultLifetimeMs',
      default: 900_000,
    }),
    maxLifetimeMs: setting(z.number().int().positive().optional(), 'Longest DID-auth token lifetime, ms.', {
      embedded: 'limits.tokenMaxLifetimeMs',
      default: 86_400_000,
    }),
  })
  .strict()
  .superRefine((value, ctx) => {
    const { defaultLifetimeMs, maxLifetimeMs } = value
    if (defaultLifetimeMs !== undefined && maxLifetimeMs !== undefined && defaultLifetimeMs > maxLifetimeMs)
      ctx.addIssue({ code: 'custom', path: ['defaultLifetimeMs'], message: 'must be at most maxLifetimeMs' })
  })

/** Members of a JWK that hold private or secret key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const

/** A public JWK: `kty` and the key's public members; any private member (`d`…) or a symmetric key is refused. */
const publicJwk = z
  .looseObject({ kty: z.enum(['EC', 'OKP', 'RSA']).meta({ description: 'Key type (a public key: EC, OKP or RSA).' }) })
  .superRefine((jwk, ctx) => {
    for (const member of PRIVATE_JWK_MEMBERS)
      if (Object.hasOwn(jwk, member))
        ctx.addIssue({
          code: 'custom',
          path: [member],
          message: 'a private key member: give the public key only (no private key in a config file)',
        })
  })
  .meta({
    description: 'A public JWK (RFC 7517); private members (`d`…) are refused.',
    not: { anyOf: PRIVATE_JWK_MEMBERS.map((member) => ({ required: [member] })) },
  })

/** An issuer the operator declares: the tenant, its slug, and its configurations (created or replaced at each start). */
const declaredIssuer = z
  .object({
    tenant: setting(z.string().regex(TENANT_ID, 'must be 1-64 letters, digits, _ - .'), 'The tenant that issues.'),
    slug: setting(issuerSlug, 'The issuer slug: the Credential Issuer Identifier is <publicUrl>/oid4vci/<slug>.'),
    configurations: setting(
      z
        .array(createCredentialConfiguration.omit({ issuer: true }))
        .min(1)
        .max(100),
      'Credential configurations, as createCredentialConfiguration takes them without `issuer` (docs/oid4vci.md); ' +
        'each issuingDid must be a wallet of the tenant. Created or replaced at each start, audited as the config system.',
      { embedded: 'service.applyDeclaredConfigurations(tenant, slug, configurations)' },
    ),
  })
  .strict()
  .superRefine((value, ctx) => {
    const ids = value.configurations.map((c) => c.id)
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i)
        ctx.addIssue({ code: 'custom', path: ['configurations', i, 'id'], message: `configuration ${id} is listed twice` })
    })
  })

const ttl = (name: keyof typeof OID4VCI_DEFAULTS, description: string, max: number) =>
  setting(z.number().int().min(1).max(max).optional(), description, { embedded: `oid4vci({ ${name} })`, default: OID4VCI_DEFAULTS[name] })

/** The OpenID for Verifiable Credential Issuance issuer (`didvault/oid4vc`): on, its settings, declared issuers. */
const oid4vci = z
  .object({
    enabled: setting(
      z.boolean().optional(),
      'Serve the OID4VCI issuer (needs publicUrl and the optional packages @openid4vc/openid4vci, @openid4vc/oauth2, ' +
        '@openid4vc/utils). Default: on when the section is given.',
      { flag: '--oid4vci on|off', embedded: 'IdentityService.create({ oid4vci: oid4vci(options) })', default: true },
    ),
    txCodeAttempts: ttl('txCodeAttempts', 'Failed tx_code (PIN) tries before the pre-authorized code is burned.', 100),
    accessTokenTtlSeconds: ttl('accessTokenTtlSeconds', 'Lifetime of access tokens, seconds.', 86_400),
    nonceTtlSeconds: ttl('nonceTtlSeconds', 'Lifetime of c_nonces, seconds.', 86_400),
    offerTtlSeconds: ttl('offerTtlSeconds', 'Default lifetime of credential offers (and their pre-authorized codes), seconds.', 86_400),
    deferredTtlSeconds: ttl(
      'deferredTtlSeconds',
      'Lifetime of pending deferred issuances, and of the refresh tokens of grants covering a deferred configuration, seconds.',
      30 * 86_400,
    ),
    loginUrl: setting(
      httpUrl.optional(),
      'Authorization code flow: the operator’s login page the authorization endpoint redirects the user to; it returns a ' +
        'signed assertion of the subject’s claims (docs/oid4vci.md).',
      { embedded: 'oid4vci({ loginUrl })' },
    ),
    loginAssertionKeys: setting(
      z.array(publicJwk).min(1).max(20).optional(),
      'The public keys (JWK) whose signatures of login assertions the authorization endpoint accepts. Public keys only.',
      { embedded: 'oid4vci({ loginAssertionKeys })' },
    ),
    issuers: setting(
      z.array(declaredIssuer).min(1).max(1_000).optional(),
      'Issuers and configurations declared by the operator, applied at start.',
    ),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.loginUrl === undefined) !== (value.loginAssertionKeys === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [value.loginUrl === undefined ? 'loginUrl' : 'loginAssertionKeys'],
        message: 'loginUrl and loginAssertionKeys go together',
      })
    const seen = { tenant: new Map<string, number>(), slug: new Map<string, number>() }
    ;(value.issuers ?? []).forEach((issuer, i) => {
      for (const key of ['tenant', 'slug'] as const) {
        const first = seen[key].get(issuer[key])
        if (first === undefined) seen[key].set(issuer[key], i)
        else
          ctx.addIssue({
            code: 'custom',
            path: ['issuers', i, key],
            message: `${key} ${issuer[key]} is already issuers[${first}]'s (one issuer per tenant, slugs unique)`,
          })
      }
    })
  })

/** The config file's `oid4vci` section, checked. */
export type Oid4vciSettings = z.output<typeof oid4vci>

const vpLimit = (name: keyof typeof OID4VP_DEFAULTS, description: string, max: number) =>
  setting(z.number().int().min(1).max(max).optional(), description, { embedded: `oid4vp({ ${name} })`, default: OID4VP_DEFAULTS[name] })

/** The OpenID for Verifiable Presentations verifier (`didvault/oid4vc`): on, and its settings. */
const oid4vp = z
  .object({
    enabled: setting(
      z.boolean().optional(),
      'Serve the OID4VP verifier (needs publicUrl and the optional packages @openid4vc/openid4vp, dcql, jose). Default: ' +
        'on when the section is given.',
      { flag: '--oid4vp on|off', embedded: 'IdentityService.create({ oid4vp: oid4vp(options) })', default: true },
    ),
    requestTtlSeconds: vpLimit('requestTtlSeconds', 'Default lifetime of presentation requests, seconds.', 3_600),
    resultTtlSeconds: vpLimit('resultTtlSeconds', 'How long requests and their results are kept, seconds.', 30 * 86_400),
    maxResponseBytes: vpLimit('maxResponseBytes', 'Largest wallet response body, bytes.', 16 * 1024 * 1024),
    maxPresentations: vpLimit('maxPresentations', 'Most presentations in one vp_token.', 100),
    x509: setting(
      z
        .object({
          chainFile: z.string().min(1).describe('PEM file of the certificate chain, leaf first.'),
          keyFile: z.string().min(1).describe('PEM file (PKCS#8, mode 0600) of the leaf certificate’s private key.'),
          tenants: z
            .array(z.string().min(1))
            .min(1)
            .optional()
            .describe('The tenants that may make requests under the certificate (default: every tenant).'),
        })
        .strict()
        .optional(),
      'The certificate chain and key for the x509_san_dns: and x509_hash: client identifiers (paths relative to the ' + 'config file).',
      { embedded: 'oid4vp({ x509: { chain, privateKeyJwk } })' },
    ),
  })
  .strict()
  .superRefine((value, ctx) => {
    const request = value.requestTtlSeconds ?? OID4VP_DEFAULTS.requestTtlSeconds
    if ((value.resultTtlSeconds ?? OID4VP_DEFAULTS.resultTtlSeconds) < request)
      ctx.addIssue({ code: 'custom', path: ['resultTtlSeconds'], message: 'must be at least requestTtlSeconds' })
  })

/** The config file's `oid4vp` section, checked. */
export type Oid4vpSettings = z.output<typeof oid4vp>

/** A hardware security module over PKCS#11 (`didvault/pkcs11`, optional peer pkcs11js): where HSM keys live. */
const hsm = z
  .object({
    module: setting(z.string().min(1), 'Path of the PKCS#11 library (e.g. /usr/lib/softhsm/libsofthsm2.so).', {
      flag: '--hsm-module',
      embedded: 'IdentityService.create({ hsm: pkcs11({ module }) })',
    }),
    tokenLabel: setting(z.string().min(1).max(32), 'Label of the token holding the keys (CKA_LABEL of the token, at most 32 characters).', {
      flag: '--hsm-token-label',
      embedded: 'pkcs11({ tokenLabel })',
    }),
    pinFile: setting(
      z.string().min(1).optional(),
      'File (mode 0600) holding the user PIN, relative to the config file; else DIDVAULT_HSM_PIN. The PIN is never a flag ' +
        'nor a config value, and never logged.',
      { flag: '--hsm-pin-file', embedded: 'pkcs11({ pin })' },
    ),
    sessions: setting(z.number().int().min(1).max(64).optional(), 'Sessions in the signing pool.', {
      embedded: 'pkcs11({ sessions })',
      default: 4,
    }),
    masterKey: setting(
      z.boolean().optional(),
      'The master key in this token: a data key wrapped by an AES key generated in it (docs/keys.md *The master key in an ' +
        'HSM*). DIDVAULT_MASTER_KEY and a SQLite `<db>.key`, when present, are then previous keys (a rotation into the HSM); ' +
        'move a database in with `didvault master-key rotate --to-hsm`.',
      { embedded: 'IdentityService.create({ masterKey: { hsm } })', default: false },
    ),
    masterKeyLabel: setting(
      z.string().min(1).optional(),
      "The label of the token's AES key wrapping the master key (default: the one the database records; for a new " +
        'database a new key `didvault-master-<8 hex>`). Generated when the token has none of that label. Also the token key ' +
        '`didvault master-key rotate --to-hsm` uses (its --hsm-key-label over it).',
      { embedded: 'IdentityService.create({ masterKey: { hsm, label } })' },
    ),
  })
  .strict()

/** The config file's `hsm` section, checked. */
export type HsmSettings = z.output<typeof hsm>

/** The config file. */
export const configSchema = z
  .object({
    $schema: setting(z.string().optional(), 'The JSON Schema of this file, for editors (ignored).'),
    host: setting(z.string().min(1).optional(), 'Address to listen on.', { flag: '--host', default: '127.0.0.1' }),
    port: setting(port.optional(), 'Port, 0..65535 (0: any free port).', { flag: '--port', default: 8080 }),
    storage: setting(
      z.union([storageUrl, storageObject]).optional(),
      `${STORAGE_DESCRIPTION} A string, or an object with the URL in \`url\` and the settings below.`,
      { flag: '--storage', env: 'DIDVAULT_STORAGE', embedded: 'storage (an adapter)', default: 'sqlite:./didvault.db' },
    ),
    workers: setting(
      z.union([z.number().int().min(1).max(MAX_WORKERS), z.literal('auto')]).optional(),
      `Processes serving the port, 1..${MAX_WORKERS} or "auto" (the available cores).`,
      { flag: '--workers', default: 1 },
    ),
    cors: setting(z.array(origin).optional(), 'Origins (scheme://host[:port]) whose browser pages may call the API.', {
      flag: '--cors',
      embedded: 'RouterOptions.cors.origins',
      default: [],
    }),
    console: setting(
      z.boolean().optional(),
      'Serve the web console at /console (static files of the package, strict Content-Security-Policy; docs/console.md).',
      { flag: '--console', default: false },
    ),
    publicUrl: setting(
      checkedString((value) => publicBaseUrl(value, 'publicUrl'), 'publicUrl ').optional(),
      'Public base URL; status lists are published at <publicUrl>/status/<listId>.',
      { flag: '--public-url', env: 'DIDVAULT_PUBLIC_URL', embedded: 'publicUrl' },
    ),
    statusListOrigins: setting(
      z.array(statusListOrigin).optional(),
      'Origins (https; http on loopback) whose status lists Verify may fetch.',
      { flag: '--status-list-origin', env: 'DIDVAULT_STATUS_LIST_ORIGINS', embedded: 'statusListOrigins', default: [] },
    ),
    didWebOrigins: setting(
      z.array(didWebOrigin).optional(),
      'Origins (https) whose did:web DID documents the service may fetch to resolve did:web DIDs it does not hold.',
      { flag: '--did-web-origin', env: 'DIDVAULT_DID_WEB_ORIGINS', embedded: 'didWebOrigins', default: [] },
    ),
    contexts: setting(
      z.record(z.string(), z.string().min(1)).optional(),
      'JSON-LD contexts credentials may reference: URL → file (relative to the config file).',
      { flag: '--context <url>=<file>', embedded: 'contexts', default: {} },
    ),
    previousMasterKeyFiles: setting(
      z.array(z.string().min(1)).optional(),
      'Files each holding an earlier master key (64 hex characters, mode 0600), accepted for opening secrets while a ' +
        'master-key rotation runs (docs/operations.md#master-key-rotation); relative to the config file. The keys ' +
        'themselves are never settings.',
      { flag: '--previous-master-key-file', embedded: 'previousMasterKeys', default: [] },
    ),
    networks: setting(z.array(network).min(1).optional(), 'did:ethr networks; the first is where new DIDs are made.', {
      embedded: 'networks',
      default: [{ name: 'dev', chainId: 1337 }],
    }),
    resolvers: setting(
      z.record(z.string(), httpUrl).optional(),
      'Universal Resolver endpoints credential operations may name in `resolver`: name → URL.',
      { embedded: 'resolvers (universalResolver({ url }))', default: {} },
    ),
    limits: limits.optional(),
    tokens: tokens.optional(),
    log: z
      .object({
        level: setting(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(), 'Lowest level logged.', {
          flag: '--log-level',
          default: 'info',
        }),
        format: setting(z.enum(['json', 'pretty']).optional(), 'json (one line per event) or pretty (for a terminal).', {
          flag: '--log-format',
          default: 'json',
        }),
      })
      .strict()
      .optional(),
    metrics: z
      .object({
        enabled: setting(z.boolean().optional(), 'Serve GET /metrics (Prometheus).', { flag: '--metrics on|off', default: true }),
        port: setting(port.optional(), 'Serve /metrics on this port instead of the service port.', { flag: '--metrics-port' }),
      })
      .strict()
      .optional(),
    oid4vci: oid4vci.optional(),
    oid4vp: oid4vp.optional(),
    hsm: setting(hsm.optional(), 'A PKCS#11 HSM for keyManagement HSM (docs/keys.md *HSM custody*, docs/operations.md *HSM*).', {
      embedded: 'IdentityService.create({ hsm: pkcs11(options) })',
    }),
    shutdown: z
      .object({
        drainMs: setting(
          z.number().int().min(0).max(MAX_DRAIN_MS).optional(),
          'After SIGTERM/SIGINT, how long in-flight requests may take (ms); then their connections are cut and the process exits.',
          { flag: '--drain-ms', default: DEFAULT_DRAIN_MS },
        ),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    for (const url of Object.keys(value.contexts ?? {}))
      if (!isContextUrl(url)) ctx.addIssue({ code: 'custom', path: ['contexts', url], message: 'not an absolute http(s) or urn URL' })
    for (const name of Object.keys(value.resolvers ?? {})) {
      if (name === 'default')
        ctx.addIssue({
          code: 'custom',
          path: ['resolvers', name],
          message: '"default" is the service’s own resolver; give yours another name',
        })
      else if (!RESOLVER_NAME.test(name))
        ctx.addIssue({ code: 'custom', path: ['resolvers', name], message: 'a name is 1-50 letters, digits, _ . -' })
    }
    const names = (value.networks ?? []).map((n) => n.name)
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i)
        ctx.addIssue({ code: 'custom', path: ['networks', i, 'name'], message: `network ${name} is listed twice` })
    })
  })

/** A parsed, checked config file (origins and URLs in canonical spelling). */
export type DidvaultConfig = z.output<typeof configSchema>
/** A config file as written. */
export type DidvaultConfigInput = z.input<typeof configSchema>

/** The JSON Schema of the config file (the input side: what a file may hold). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, {
      io: 'input',
      // zod leaves out a `default` of the metadata where a transform follows (the origins' lists): the docs default is kept.
      override: ({ zodSchema, jsonSchema }) => {
        const fallback = z.globalRegistry.get(zodSchema)?.default
        if (fallback !== undefined) jsonSchema.default = fallback
      },
    }),
    title: 'didvault serve configuration',
  }
}
