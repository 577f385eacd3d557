/**
 * The wallet's Authorization Response as the `response_uri` receives it (OID4VP 1.0 §8.2 `direct_post`, §8.3
 * `direct_post.jwt`, §8.5 error response): the form body read into one of three shapes — a `vp_token` (a JSON object:
 * credential query id → presentations), an encrypted `response` (a JWE, for the caller to decrypt), or the wallet's
 * `error` — and the decrypted JWE payload read the same way. Sizes and nesting are bounded before any `JSON.parse`;
 * a parameter given twice, or two answers in one body (`vp_token` with `error`, …), is refused. Parameters this
 * verifier does not know are ignored (RFC 6749 §3.1).
 */
import { checkJsonText } from '../../operations/check-json-text.js'
import { IdentityError } from '../../errors.js'
import { oauthText } from '../../oid4vci/oauth-error.js'

/** A response, as read. */
export type VpParsedResponse =
  | { kind: 'vp_token'; vpToken: Record<string, unknown>; state?: string }
  | { kind: 'jwe'; response: string }
  | { kind: 'error'; error: string; errorDescription?: string; state?: string }

/** What a response may be, whatever it says. */
export interface VpResponseBounds {
  /** Most bytes of the whole form (names and values, UTF-8) or of a JSON text. */
  maxBytes: number
  /** Deepest nesting of objects and arrays in the `vp_token`. */
  maxDepth: number
}

/** A response read, or why it was refused (a description for an `invalid_request`). */
export type VpResponseResult = ({ ok: true } & VpParsedResponse) | { ok: false; error: string }

/** Longest `state` accepted (the verifier's are 43 characters). */
const MAX_STATE = 512
/** Longest `error_description` kept (characters); a longer one is cut. */
const MAX_DESCRIPTION = 1024
/** An OAuth error code: RFC 6749 §5.2's characters, at most 128. */
const ERROR_CODE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,128}$/

const refused = (error: string): { ok: false; error: string } => ({ ok: false, error })
const UTF8 = new TextEncoder()

/**
 * JSON text (a string, or UTF-8 bytes) parsed after its bounds are checked on the text: at most `maxBytes` bytes,
 * nesting at most `maxDepth`, no U+0000 or lone surrogate in a string, no member named twice in an object.
 */
export function parseVpBoundedJson(
  text: string | Uint8Array,
  bounds: VpResponseBounds & { what: string },
): { ok: true; value: unknown } | { ok: false; error: string } {
  // A string's UTF-8 length is at most 3 per UTF-16 unit: a text plainly over the bound is refused before encoding.
  if (typeof text === 'string' && text.length > bounds.maxBytes) return refused(`${bounds.what} is over ${bounds.maxBytes} bytes`)
  const bytes = typeof text === 'string' ? UTF8.encode(text) : text
  if (bytes.length > bounds.maxBytes) return refused(`${bounds.what} is over ${bounds.maxBytes} bytes`)
  try {
    checkJsonText(bytes, bounds.maxDepth)
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown }
  } catch (err) {
    const why = err instanceof IdentityError ? err.errorMessage.replace(/^invalid request: body/, 'it') : 'it is not JSON'
    return refused(`${bounds.what}: ${why.replace(/^invalid request: /, '')}`)
  }
}

/** The form's parameters (from its text, or as the router made them: an object of strings), each name once. */
function fieldsOf(form: string | Readonly<Record<string, unknown>>, maxBytes: number): Map<string, string> | string {
  if (typeof form === 'string') {
    if (form.length > maxBytes) return `the response is over ${maxBytes} bytes`
    const fields = new Map<string, string>()
    for (const [name, value] of new URLSearchParams(form)) {
      if (fields.has(name)) return `${name}: a parameter may be given once`
      fields.set(name, value)
    }
    return fields
  }
  const fields = new Map<string, string>()
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue
    if (typeof value !== 'string') return `${name}: a form parameter is a string`
    fields.set(name, value)
  }
  return fields
}

/** The UTF-8 size of the form's names and values (the separators aside). */
function sizeOf(fields: Map<string, string>): number {
  let size = 0
  for (const [name, value] of fields) size += Buffer.byteLength(name) + Buffer.byteLength(value)
  return size
}

/** `state`, checked: absent, or a string of at most {@link MAX_STATE} characters. */
function stateOf(value: unknown): { ok: true; state?: string } | { ok: false; error: string } {
  if (value === undefined) return { ok: true }
  if (typeof value !== 'string' || value === '' || value.length > MAX_STATE) return refused('state must be a non-empty string')
  return { ok: true, state: value }
}

/** The parameters of a response (the form's, or a JWE payload's), read once the size is known to be within bounds. */
function readParams(get: (name: string) => unknown, bounds: VpResponseBounds, encrypted: boolean): VpResponseResult {
  const vpToken = get('vp_token')
  const response = get('response')
  const error = get('error')
  const given = [vpToken, response, error].filter((v) => v !== undefined).length
  if (given === 0) return refused('the response has no vp_token, response or error')
  if (given > 1) return refused('a response carries exactly one of vp_token, response (encrypted) and error')
  const state = stateOf(get('state'))
  if (!state.ok) return state

  if (response !== undefined) {
    if (encrypted) return refused('an encrypted response cannot hold another one')
    if (typeof response !== 'string' || response === '') return refused('response must be a JWE')
    return { ok: true, kind: 'jwe', response }
  }
  if (error !== undefined) {
    if (typeof error !== 'string' || !ERROR_CODE.test(error)) return refused('error must be an OAuth error code')
    const description = get('error_description')
    if (description !== undefined && typeof description !== 'string') return refused('error_description must be a string')
    return {
      ok: true,
      kind: 'error',
      error,
      ...(description !== undefined && description !== '' && { errorDescription: oauthText(description.slice(0, MAX_DESCRIPTION)) }),
      ...(state.state !== undefined && { state: state.state }),
    }
  }
  // vp_token: a JSON string in a form; in a JWE payload the object itself (or, as some wallets send it, its JSON text).
  let token: unknown = vpToken
  if (typeof vpToken === 'string') {
    const parsed = parseVpBoundedJson(vpToken, { ...bounds, what: 'vp_token' })
    if (!parsed.ok) return parsed
    token = parsed.value
  }
  if (typeof token !== 'object' || token === null || Array.isArray(token))
    return refused('vp_token must be a JSON object of credential query ids and their presentations')
  return { ok: true, kind: 'vp_token', vpToken: token as Record<string, unknown>, ...(state.state !== undefined && { state: state.state }) }
}

/**
 * Reads the form body the `response_uri` received: its text (`application/x-www-form-urlencoded`, a parameter given
 * twice refused) or the object of strings the router made of it. At most `maxBytes` in all, checked first.
 */
export function parseVpResponseForm(form: string | Readonly<Record<string, unknown>>, bounds: VpResponseBounds): VpResponseResult {
  const fields = fieldsOf(form, bounds.maxBytes)
  if (typeof fields === 'string') return refused(fields)
  if (sizeOf(fields) > bounds.maxBytes) return refused(`the response is over ${bounds.maxBytes} bytes`)
  return readParams((name) => fields.get(name), bounds, false)
}

/**
 * Reads the payload of a decrypted `direct_post.jwt` response (a JSON object, bounded when it was parsed): its
 * `vp_token` (an object, or its JSON text) and `state`, or the wallet's `error`.
 */
export function parseVpResponsePayload(payload: Readonly<Record<string, unknown>>, bounds: VpResponseBounds): VpResponseResult {
  return readParams((name) => (Object.hasOwn(payload, name) ? payload[name] : undefined), bounds, true)
}
