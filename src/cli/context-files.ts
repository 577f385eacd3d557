/**
 * `didvault serve --context <url>=<file.jsonld>` (repeatable): JSON-LD context documents the
 * operator provides, read from files and registered before the service starts, so credentials
 * may reference them by URL (contexts are never fetched). Any problem stops the start with a
 * message naming the flag's URL and file: a malformed flag is a usage error (exit 2); a file
 * that cannot be read, is not JSON, is not a context document, is not valid JSON-LD, or gives
 * another document for a URL already known, exits 1.
 */
import { readFileSync } from 'node:fs'
import { checkContext } from '../proofs/jsonld/canonize.js'
import { getContext, isContextDocument, isContextUrl, registerContext, type ContextDocument } from '../proofs/jsonld/contexts.js'
import { UsageError } from './usage.js'

/** One `--context` value: the URL, and the file after the last `=` (a URL may hold `=`, in its query). */
export interface ContextFlag {
  url: string
  file: string
  /** Where it was given, for messages, when not a flag: the config file's key (`contexts["<url>"]`). */
  setting?: string
}

/** How messages name a context: its flag, or its config file key. */
const aboutOf = ({ url, file, setting }: ContextFlag) => (setting === undefined ? `--context ${url}=${file}` : `${setting} (${file})`)

/** Parses a `--context` value. @throws {UsageError} not `<url>=<file>`, or not an absolute http(s)/urn URL */
export function parseContextFlag(value: string): ContextFlag {
  const at = value.lastIndexOf('=')
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--context must be <url>=<file.jsonld>, got ${JSON.stringify(value)}`)
  const flag = { url: value.slice(0, at), file: value.slice(at + 1) }
  if (!isContextUrl(flag.url)) throw new UsageError(`--context ${flag.url}: not an absolute http(s) or urn URL`)
  return flag
}

/** The context document in `file`. @throws {Error} naming the file when it is unreadable, not JSON, or not a context document */
function readContextDocument(flag: ContextFlag): ContextDocument {
  const about = aboutOf(flag)
  const { file } = flag
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new Error(`${about}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (err) {
    throw new Error(`${about}: the file is not JSON (${(err as Error).message})`)
  }
  if (!isContextDocument(document)) throw new Error(`${about}: the file is not a JSON-LD context document (a JSON object with "@context")`)
  return document
}

/**
 * Reads every `--context` value's file (or config file context, already parsed), registers it
 * under its URL, and has jsonld process it, in the order given; stops at the first problem. The
 * same URL may be given twice only with the same document.
 *
 * @throws {UsageError} a malformed value
 * @throws {Error} a file problem, a URL known with another document, or a context jsonld refuses
 */
export async function registerContextFiles(values: readonly (string | ContextFlag)[]): Promise<void> {
  const flags = values.map((value) => (typeof value === 'string' ? parseContextFlag(value) : value))
  const fileOf = new Map<string, string>()
  for (const flag of flags) {
    const document = readContextDocument(flag)
    const about = aboutOf(flag)
    const known = getContext(flag.url)
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(document)) {
      const earlier = fileOf.get(flag.url)
      if (earlier !== undefined) throw new Error(`${about}: ${earlier} gives another document for this URL`)
      throw new Error(`${about}: didvault bundles another document under this URL`)
    }
    registerContext(flag.url, document)
    fileOf.set(flag.url, flag.file)
    try {
      await checkContext(flag.url)
    } catch (err) {
      throw new Error(`${about}: not a valid JSON-LD context: ${(err as Error).message}`)
    }
  }
}
