/**
 * The default `onError`: what an operator reads when a request fails with a 500. The response
 * says only which operation failed; the log line says why — each error of the `cause` chain
 * with its message and stack — with secrets redacted: the values the service is configured
 * with (master keys, the key-bearing parts of registry `rpcUrl`s) and what looks like a secret
 * wherever it comes from (URL passwords, 32-byte hex values such as private keys, BIP39
 * mnemonics).
 */
import { wordlist } from '@scure/bip39/wordlists/english.js'
import type { ErrorInfo } from '../operations/runtime.js'
import { escapeText } from '../text/escape.js'

/** Replaces the secrets in a text. */
export type Redactor = (text: string) => string

const REDACTED = '[redacted]'
/** How many errors of a `cause` chain are written (a chain may be cyclic or very long). */
const MAX_CHAIN = 8
/** Shorter parts of a URL are not treated as secrets (`v3`, `rpc`, `mainnet`…). */
const MIN_SECRET_PART = 8
/** BIP39 mnemonics have at least 12 words. */
const MIN_MNEMONIC_WORDS = 12

const BIP39_WORDS: ReadonlySet<string> = new Set(wordlist)
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#:@]*):([^\s/?#@]+)@/gi
const HEX_32_BYTES = /(?<![0-9a-f])(?:0x)?[0-9a-f]{64}(?![0-9a-f])/gi
const WORD_RUN = new RegExp(`[a-z]+(?:[ \\t]+[a-z]+){${MIN_MNEMONIC_WORDS - 1},}`, 'g')

/** The parts of a URL that may carry a key: its path and query (whole and piecewise) and its credentials. */
export function secretPartsOfUrl(url: string): string[] {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return [url]
  }
  const rest = url.slice(parsed.origin.length)
  const pieces = [...parsed.pathname.split('/'), ...parsed.searchParams.values(), parsed.username, parsed.password]
  const decoded = pieces.flatMap((piece) => [piece, safeDecode(piece)])
  return [rest.length > 1 ? rest : '', ...decoded].filter((part) => part.length >= MIN_SECRET_PART)
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The text forms a master key may take in a message: as given, or its bytes in hex and base64. */
export function secretFormsOfKey(key: Uint8Array | string): string[] {
  if (typeof key === 'string') return [key]
  const bytes = Buffer.from(key)
  return [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]
}

/** A redactor of `known` secrets (longest first, so a secret containing another goes whole) and of secret-looking values. */
export function redactor(known: Iterable<string>): Redactor {
  const secrets = [...new Set(known)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)
  return (text) => {
    let out = text
    for (const secret of secrets) out = out.split(secret).join(REDACTED)
    return redactMnemonics(out.replace(URL_PASSWORD, `$1:${REDACTED}@`).replace(HEX_32_BYTES, REDACTED))
  }
}

/** Runs of at least 12 BIP39 words become `[redacted]`. */
function redactMnemonics(text: string): string {
  return text.replace(WORD_RUN, (run) => {
    const words = run.split(/[ \t]+/)
    const kept: string[] = []
    let pending: string[] = []
    const flush = () => {
      if (pending.length >= MIN_MNEMONIC_WORDS) kept.push(REDACTED)
      else kept.push(...pending)
      pending = []
    }
    for (const word of words) {
      if (BIP39_WORDS.has(word)) pending.push(word)
      else {
        flush()
        kept.push(word)
      }
    }
    flush()
    return kept.join(' ')
  })
}

/** One error: its stack (which begins with `name: message`), or name and message when it has no usable stack. */
function describeOne(err: unknown): string {
  if (typeof err === 'string') return `thrown string: ${err}`
  if (!(err instanceof Error)) return `thrown ${err === null ? 'null' : typeof err} (not an Error)`
  const head = `${err.name}: ${err.message}`
  const stack = typeof err.stack === 'string' ? err.stack : ''
  return stack.includes(err.message) ? stack : stack ? `${head}\n${stack}` : head
}

/** The error and its causes, outermost first, at most {@link MAX_CHAIN}, each once. */
function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = []
  for (let e: unknown = err; e !== undefined && chain.length < MAX_CHAIN && !chain.includes(e);) {
    chain.push(e)
    e = e instanceof Error ? e.cause : undefined
  }
  return chain
}

/**
 * The error's message and stack, then each `cause`'s, indented, with secrets redacted; each line
 * escaped (`text/escape.ts`), as a message may quote an identifier from signed content.
 */
export function describeError(err: unknown, redact: Redactor): string {
  const parts = causeChain(err).map((e, i) => (i === 0 ? '' : 'caused by: ') + describeOne(e))
  return redact(parts.join('\n'))
    .split('\n')
    .map(escapeText)
    .join('\n')
    .replace(/\n(?!\s)/g, '\n  ')
}

/** What failed: `<operation> failed`, or `<operation>: an item failed (<item>)` for a part of a 200 answer. */
export const failureTitle = (operation: string, info?: ErrorInfo) =>
  info?.item === undefined ? `${operation} failed` : `${operation}: an item failed (${info.item})`

/** The default `onError`: `didvault: <operation> failed [request <id>]: <error, stack and causes>` on stderr. */
export function consoleErrorLog(redact: Redactor): (operation: string, error: unknown, info?: ErrorInfo) => void {
  return (operation, error, info) => {
    const request = info?.requestId === undefined ? '' : ` [request ${info.requestId}]`
    console.error(`didvault: ${failureTitle(operation, info)}${request}: ${describeError(error, redact)}`)
  }
}
