/**
 * Fuzzing from the contract: for every operation of `/openapi.json` (served by a real router on
 * loopback over a real SQLite file), requests generated from its schemas — valid ones naming real
 * resources with real tokens, and mutated ones (wrong types, missing and extra members, huge
 * values, awkward unicode, another tenant's key, forged, tampered and expired tokens, bodies that
 * are not JSON) — must never get a 5xx, every answer but a 200 must be the error body, and a
 * refused request must write nothing (a digest of every collection before and after).
 *
 * DIDVAULT_FUZZ_RUNS sets the requests per operation (default 100), DIDVAULT_FUZZ_SEED the seed
 * (printed by every run): the same seed and runs replay the same requests. DIDVAULT_FUZZ_STORAGE
 * runs it on another backend of the harness (default `sqlite`).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TENANT_B, snapshot, startHarness, tokenFor, type Harness, type HarnessStorage } from '../helpers/harness.js'
import { mintToken, tamper } from '../helpers/tokens.js'
import { arbitraryOf, type Schema } from './schema-arbitrary.js'
import { awkwardStrings, mutationsOf } from './mutations.js'

const RUNS = Number(process.env.DIDVAULT_FUZZ_RUNS ?? 100)
/** The backend (a `HarnessStorage`): a real SQLite file unless DIDVAULT_FUZZ_STORAGE names another (postgres, memory, mongo-stand-in). */
const STORAGE = (process.env.DIDVAULT_FUZZ_STORAGE ?? 'sqlite') as HarnessStorage
const SEED = Number(process.env.DIDVAULT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
console.log(
  `[fuzz] ${STORAGE}: seed ${SEED}, ${RUNS} requests per operation (DIDVAULT_FUZZ_SEED=${SEED} DIDVAULT_FUZZ_RUNS=${RUNS} to replay)`,
)

/** Who a request claims to be. */
type Auth = 'valid' | 'none' | 'garbage' | 'otherTenant' | 'forged' | 'tampered' | 'expired' | 'outsider' | 'commas' | 'many'
const BAD_AUTH: Auth[] = ['none', 'garbage', 'otherTenant', 'forged', 'tampered', 'expired', 'outsider', 'commas', 'many']

interface FuzzRequest {
  auth: Auth
  params: Record<string, string>
  query: Record<string, string | string[]>
  /** A JSON body, or raw text with its content type. */
  body?: { json: unknown } | { raw: string; contentType: string }
}

interface Operation {
  id: string
  method: string
  path: string
  security: 'public' | 'tenant' | 'tenant+did' | 'access'
  params: Array<{ name: string; in: 'path' | 'query'; required: boolean; schema: Schema }>
  body?: Schema
  example?: unknown
  /**
   * Statuses whose documented body is the operation's own, not the error body (DID resolution's results): answered
   * at one of them, the body is that (the harness checks it against the published schema), and a 501 is an answer.
   */
  results: Set<number>
}

let h: Harness
let document: any
/** Tokens of the fixtures: tenant A's vault root (vault control), another tenant's wallet. */
const tokens = {} as Record<'root' | 'second' | 'otherTenant' | 'forged' | 'expired' | 'outsider', string>
/** Strings naming real resources, of tenant A and of tenant B. */
const known: string[] = []
const tally = new Map<string, Map<number, number>>()

async function ok(method: string, path: string, init: Parameters<Harness['request']>[2]): Promise<any> {
  const res = await h.request(method, path, init)
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Tenant A: a BIP44 vault (root and one more wallet), a role, a stored credential with status; tenant B: a vault and a role. */
async function fixtures(): Promise<void> {
  const { vault } = await ok('POST', '/vaults', { json: { name: 'fuzz', hierarchy: 'BIP44' } })
  const root = vault.wallets[0]
  tokens.root = await tokenFor(h, root.did)
  const didAuth = tokens.root
  const { wallet } = await ok('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth })
  tokens.second = await tokenFor(h, wallet.did)
  const { role } = await ok('POST', '/roles', { json: { permissions: ['Write'] }, didAuth })
  await ok('POST', '/roles/assignments', { json: { assignments: [{ role: role.did, did: wallet.did }] }, didAuth })
  const signed = await ok('POST', '/claims/sign', {
    json: { iss: root.did, format: 'JWT', status: { purposes: ['revocation', 'suspension'] }, claims: [{ payload: { n: 1 } }] },
    didAuth,
  })
  const stored = await ok('POST', '/claims', { json: { roles: [role.did], claims: [{ jwt: signed.vcs[0].jwt }] }, didAuth })
  const listId = (
    JSON.parse(Buffer.from(signed.vcs[0].jwt.split('.')[1], 'base64url').toString()).vc.credentialStatus[0].statusListCredential as string
  )
    .split('/')
    .pop()!
  const other = await ok('POST', '/vaults', { json: { name: 'other', hierarchy: 'BIP44' }, token: TENANT_B })
  tokens.otherTenant = await tokenFor(h, other.vault.wallets[0].did, TENANT_B)
  const otherRole = await ok('POST', '/roles', { json: { permissions: ['Read'] }, token: TENANT_B, didAuth: tokens.otherTenant })
  tokens.forged = (await mintToken({ iss: root.did })).jwt
  tokens.expired = (await mintToken({ expIn: -3_600 })).jwt
  tokens.outsider = (await mintToken()).jwt
  known.push(
    ...[root, wallet, other.vault.wallets[0]].flatMap((w) => [w.did, w._id]),
    vault.id,
    other.vault.id,
    role.did,
    role._id,
    otherRole.role.did,
    stored.vcs[0]._id,
    signed.vcs[0].id,
    signed.vcs[0].jwt,
    listId,
    'VerifiableCredential',
    'revocation',
    'default',
    // The wallets the valid tokens control weigh more: requests naming them reach further.
    ...Array<string>(4).fill(root.did),
    ...Array<string>(2).fill(wallet.did),
  )
}

/** The operations of the document, deletions last (they may remove the fixtures). */
function operationsOf(doc: any): Operation[] {
  const out: Operation[] = []
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const scheme = op.security?.[0] ?? {}
      const security = 'accessToken' in scheme ? 'access' : 'didAuth' in scheme ? 'tenant+did' : 'baseAuth' in scheme ? 'tenant' : 'public'
      const params = (op.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p))
      out.push({
        id: op.operationId,
        method,
        path,
        security,
        params,
        body: op.requestBody?.content?.['application/json']?.schema,
        example: op.requestBody?.content?.['application/json']?.example,
        results: new Set(
          Object.entries<any>(op.responses)
            .filter(([status, r]) => status !== '200' && r.content?.['application/json']?.schema?.$ref !== '#/components/schemas/ErrorBody')
            .map(([status]) => Number(status)),
        ),
      })
    }
  }
  // Deleting wallets or vaults may take the fixtures' root wallet, whose tokens the others use.
  const last = (o: Operation) => (o.method !== 'delete' ? 0 : o.path === '/wallet' || o.path === '/vaults' ? 2 : 1)
  return out.sort((a, b) => last(a) - last(b))
}

const DID = /^did:/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-/

/** `value` with each DID and id replaced by a known one of the same kind, and each alias made unique. */
function withKnown(value: unknown, key?: string): fc.Arbitrary<unknown> {
  if (typeof value === 'string') {
    // A name that must be unique (an alias) gets a random suffix, so the example can succeed more than once.
    if (key === 'alias' || key === 'name') return fc.stringMatching(/^[a-z0-9]{1,8}$/).map((suffix) => `${value}-${suffix}`)
    const kind = DID.test(value) ? DID : UUID.test(value) ? UUID : undefined
    const fitting = kind ? known.filter((k) => kind.test(k)) : []
    return fitting.length > 0 ? fc.constantFrom(...fitting) : fc.constant(value)
  }
  if (Array.isArray(value)) return fc.tuple(...value.map((v) => withKnown(v)))
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
    return fc.tuple(...entries.map(([k, v]) => withKnown(v, k))).map((vs) => Object.fromEntries(entries.map(([k], i) => [k, vs[i]])))
  }
  return fc.constant(value)
}

/**
 * Whether a value can be sent as a parameter: an empty, `.` or `..` path segment makes another path (a URL's dot segments are
 * resolved, `%2E` ones too), not this operation's route — the embedding app answers it.
 */
const sendableIn = (where: 'path' | 'query') => (value: string) => where === 'query' || !['', '.', '..'].includes(value)

const asQueryValue = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v))

/** Requests for `op`: valid ones, and each kind of mutation. */
function requestsFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const options = { document, known }
  // Path parameters, the required query parameters and at most one optional one (each is a filter more that may refuse).
  const model = (where: 'path' | 'query') => {
    const params = op.params.filter((p) => p.in === where)
    const required = params.filter((p) => p.required || where === 'path')
    const value = (p: Operation['params'][number]) => arbitraryOf(p.schema, options).map(asQueryValue).filter(sendableIn(where))
    const optional = params.filter((p) => !required.includes(p))
    return fc
      .subarray(optional, { maxLength: Math.min(1, optional.length) })
      .chain((chosen) => fc.record(Object.fromEntries([...required, ...chosen].map((p) => [p.name, value(p)]))))
  }
  const generated = op.body ? arbitraryOf(op.body, options).map((json) => ({ json })) : fc.constant(undefined)
  // The contract's example, its DIDs and ids replaced by real ones: a request that reaches the handler.
  const example = op.example === undefined ? undefined : fc.constant(op.example).chain((e) => withKnown(e))
  // Mostly the example: generated bodies rarely pass an operation's first checks, mutated examples get further.
  const body = example
    ? fc.oneof({ weight: 1, arbitrary: generated }, { weight: 2, arbitrary: example.map((json) => ({ json })) })
    : generated
  const valid: fc.Arbitrary<FuzzRequest> = fc.record({
    auth: fc.constant<Auth>('valid'),
    params: model('path'),
    query: model('query'),
    body,
  })
  const kinds: Array<fc.WeightedArbitrary<FuzzRequest>> = [
    { weight: 3, arbitrary: valid },
    { weight: 2, arbitrary: valid.chain((r) => fc.constantFrom(...BAD_AUTH).map((auth) => ({ ...r, auth }))) },
  ]
  if (op.body) {
    // One mutation, or two in a row.
    const mutate = (json: unknown) => mutationsOf(json).chain((once) => fc.oneof(fc.constant(once), mutationsOf(once)))
    const mutated = valid.chain((r) => mutate((r.body as { json: unknown }).json).map((json) => ({ ...r, body: { json } })))
    const raw = fc
      .constantFrom(
        { raw: '{', contentType: 'application/json' },
        { raw: '{"a":1}x', contentType: 'application/json' },
        { raw: '\u0000', contentType: 'application/json' },
        { raw: '{"a":1}', contentType: 'text/plain' },
        { raw: '<xml/>', contentType: 'application/xml' },
        { raw: '{}', contentType: 'application/json; charset=latin1' },
        { raw: '\uFEFF{}', contentType: 'application/json' },
      )
      .chain((b) => valid.map((r) => ({ ...r, body: b })))
    kinds.push({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: raw })
  }
  const queries = op.params.filter((p) => p.in === 'query').map((p) => p.name)
  kinds.push({
    weight: 2,
    arbitrary: valid.chain((r) =>
      fc.oneof(
        awkwardStrings.map((s) => ({ ...r, query: { ...r.query, [queries[0] ?? 'extra']: s } })),
        fc.constantFrom(...queries, 'extra').map((q) => ({ ...r, query: { ...r.query, [q]: ['a', 'b'] } })),
        fc.constant({ ...r, query: { ...r.query, extra: '1' } }),
        ...Object.keys(r.params).map((name) =>
          awkwardStrings.filter(sendableIn('path')).map((s) => ({ ...r, params: { ...r.params, [name]: s } })),
        ),
      ),
    ),
  })
  return fc.oneof(...kinds)
}

/** The headers of `auth` for an operation of `security`. */
function headersOf(auth: Auth, security: Operation['security']): { token: string | null; didAuth?: string } {
  const access = security === 'access'
  switch (auth) {
    case 'valid':
      if (security === 'public') return { token: null }
      if (access) return { token: tokens.root }
      return { token: undefined as never, didAuth: security === 'tenant' ? undefined : `${tokens.root},${tokens.second}` }
    case 'none':
      return { token: null }
    case 'garbage':
      return { token: 'garbage-token', didAuth: 'not.a.jwt' }
    case 'otherTenant':
      return access ? { token: tokens.otherTenant } : { token: TENANT_B, didAuth: tokens.root }
    case 'commas':
      return access ? { token: ',, ,' } : { token: undefined as never, didAuth: ',, ,' }
    case 'many':
      // The same valid token 12 times over (headers stay under Node's 16 KiB), and an outsider's: a list to verify.
      return {
        token: access ? tokens.root : (undefined as never),
        didAuth: [...Array<string>(12).fill(tokens.root), tokens.outsider].join(),
      }
    case 'tampered':
      return access ? { token: tamper(tokens.root) } : { token: undefined as never, didAuth: tamper(tokens.root) }
    default:
      return access ? { token: tokens[auth] } : { token: undefined as never, didAuth: tokens[auth] }
  }
}

/** `encodeURIComponent`, except that a lone surrogate becomes the bytes WTF-8 gives it (not UTF-8: the server must cope). */
function encodeSegment(value: string): string {
  return [...value]
    .map((c) => {
      const code = c.charCodeAt(0)
      if (c.length === 1 && code >= 0xd800 && code <= 0xdfff)
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join('')
      return encodeURIComponent(c)
    })
    .join('')
}

/** The URL path of a request: path parameters filled in, the query appended. */
function urlOf(op: Operation, req: FuzzRequest): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(req.params[name] ?? ''))
  const search = Object.entries(req.query)
    .flatMap(([name, value]) => [value].flat().map((v) => `${encodeSegment(name)}=${encodeSegment(v)}`))
    .join('&')
  return search ? `${path}?${search}` : path
}

/** The request, readable and replayable: huge strings and arrays abbreviated. */
function describeRequest(op: Operation, req: FuzzRequest): string {
  const short = (_: string, v: unknown) =>
    typeof v === 'string' && v.length > 300
      ? `${JSON.stringify(v.slice(0, 20))}…(${v.length} chars)`
      : Array.isArray(v) && v.length > 50
        ? [...v.slice(0, 3), `…(${v.length} items)`]
        : v
  return `${op.method.toUpperCase()} ${urlOf(op, req)} auth=${req.auth} body=${JSON.stringify(req.body, short)}`
}

async function send(op: Operation, req: FuzzRequest) {
  const { token, didAuth } = headersOf(req.auth, op.security)
  const init: Parameters<Harness['request']>[2] = { method: op.method, didAuth }
  if (token !== undefined) init.token = token
  if (req.body && 'json' in req.body) init.json = req.body.json
  else if (req.body) Object.assign(init, { body: req.body.raw, headers: { 'content-type': req.body.contentType } })
  return h.request(op.method.toUpperCase(), urlOf(op, req), init)
}

beforeAll(async () => {
  h = await startHarness({
    storage: STORAGE,
    service: { publicUrl: 'https://status.example.com', statusPublishIntervalMs: 86_400_000 },
  })
  document = (await h.request('GET', '/openapi.json', { token: null })).body
  await fixtures()
}, 60_000)
afterAll(async () => {
  for (const [id, statuses] of tally) console.log(`[fuzz] ${id}: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(', ')}`)
  await h?.close()
})

describe('every operation of /openapi.json, fuzzed: no 5xx, the error body on every refusal, nothing written by a refusal', () => {
  // Known only once the document is served: one test walks them all.
  it('each operation in turn', async () => {
    const operations = operationsOf(document)
    expect(operations.length).toBeGreaterThan(30)
    for (const [i, op] of operations.entries()) {
      const statuses = new Map<number, number>()
      tally.set(`${op.method.toUpperCase()} ${op.path}`, statuses)
      await fc.assert(
        fc.asyncProperty(requestsFor(op), async (req) => {
          const before = await snapshot(h)
          const res = await send(op, req)
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          const what = `${describeRequest(op, req)}\n→ ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`
          // A resolver's 501 (a DID method it does not resolve) is its answer; any other 5xx is a failure.
          if (res.status >= 500 && !(res.status === 501 && op.results.has(501))) throw new Error(`a ${res.status}: ${what}`)
          if (res.status === 200 || res.status === 304) return
          const body = res.body as Record<string, unknown>
          const shaped =
            typeof body === 'object' &&
            body !== null &&
            Object.keys(body).sort().join() === 'errorMessage,errorType,statusCode' &&
            body.statusCode === res.status &&
            typeof body.errorType === 'string' &&
            typeof body.errorMessage === 'string'
          if (!shaped && !op.results.has(res.status)) throw new Error(`not the error body: ${what}`)
          const after = await snapshot(h)
          const written = Object.keys(before).filter((name) => before[name] !== after[name])
          if (written.length > 0) throw new Error(`refused, yet ${written.join(', ')} changed: ${what}`)
        }),
        // One seed per operation, derived from the run's: each operation's requests differ. The failure is reported by
        // its own message (which describes the request): fast-check's printing of a counterexample recurses, and the
        // deep bodies the mutations make overflow its stack.
        {
          numRuns: RUNS,
          seed: SEED + i,
          endOnFailure: true,
          reporter: (details) => {
            if (details.failed) throw new Error(`seed ${SEED}, operation ${i}: ${String(details.errorInstance)}`)
          },
        },
      )
    }
  }, 600_000)
})
