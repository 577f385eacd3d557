/**
 * The operator's log: pino, one JSON line per request and per event (or, `format: 'pretty'`,
 * lines for a terminal through the optional `pino-pretty`). Records below `warn` go to stdout,
 * `warn` and above to stderr. Secret-bearing fields are redacted by path wherever they appear
 * (headers, and any field named like a key, mnemonic, passphrase, secret or share, at the top
 * level or in a `body`, `query`, `params`, `input` or `err` object); request bodies are never logged.
 */
import { pino, type DestinationStream, type Logger } from 'pino'

/** The levels of `--log-level`, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
/** `--log-format`: JSON lines (default), or `pretty` for a terminal. */
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/** What `didvault serve` logs, and how (`ServeOptions.log`). */
export interface LogOptions {
  /** Default `info`. */
  level?: LogLevel
  /** Default `json`. */
  format?: LogFormat
}

export type { Logger }

/** Field names whose values are secrets (or may carry one): redacted at the top level and in the {@link CONTAINERS}. */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'privateKey',
  'privateKeyHex',
  'mnemonic',
  'passphrase',
  'password',
  'secret',
  'share',
  'shares',
  'key',
  'apiKey',
  'masterKey',
  'seed',
  'token',
]
/** Request headers that carry credentials. */
const SECRET_HEADERS = ['authorization', 'x-did-auth', 'cookie', 'set-cookie', 'proxy-authorization']

/**
 * Objects a record may nest a request's data in. Named rather than matched by a wildcard (`*.key`),
 * which costs pino a walk of every record (≈ 10 µs a line, the whole of the logging budget).
 */
const CONTAINERS = ['body', 'query', 'params', 'input', 'err']

/** The paths of the request record's secrets: it holds nothing of a body, and headers only at `debug`. */
export const REQUEST_REDACT_PATHS: readonly string[] = SECRET_HEADERS.map((header) => `headers["${header}"]`)

/** Every path pino redacts (`[redacted]`). */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS.flatMap((field) => [field, ...CONTAINERS.map((container) => `${container}.${field}`)]),
  ...SECRET_HEADERS.map((header) => `headers["${header}"]`),
]

/** Thrown when `--log-format pretty` is asked for without the optional `pino-pretty` installed. */
export class PrettyUnavailableError extends Error {}

/** Where records go: a stream for records below `warn` and one for `warn` and above (defaults: stdout, stderr). */
export interface LogStreams {
  out?: DestinationStream
  err?: DestinationStream
}

/**
 * A JSON log destination: asynchronous writes (lines written while one is under way go out
 * together in the next), which a request's line no longer waits for; pino writes what is pending
 * synchronously when the process exits. A `kill -9` may lose the last lines, never data.
 */
export const logDestination = (dest: number | string) => pino.destination({ dest, sync: false })

/** A logger as `options` say; `streams` replace stdout and stderr (tests, benches). */
export async function createLogger(options: LogOptions = {}, streams: LogStreams = {}): Promise<Logger> {
  const format = options.format ?? 'json'
  const out = streams.out ?? (format === 'pretty' ? await prettyStream(1) : logDestination(1))
  const err = streams.err ?? (format === 'pretty' ? await prettyStream(2) : logDestination(2))
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    },
    pino.multistream(
      [
        { level: 'trace', stream: out },
        { level: 'warn', stream: err },
      ],
      { dedupe: true },
    ),
  )
}

/**
 * The logger of the start-up and shutdown lines (`didvault listening on <url>`, draining): at
 * `info` even when the level is `warn` or above, so supervisors and scripts waiting for them see
 * them; nothing at `silent`.
 */
export function lifecycleLogger(logger: Logger): Logger {
  return logger.level === 'silent' || logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' })
}

/** A `pino-pretty` stream to file descriptor `fd`. @throws {PrettyUnavailableError} when the package is not installed */
async function prettyStream(fd: 1 | 2): Promise<DestinationStream> {
  let pretty: (options: object) => DestinationStream
  try {
    pretty = ((await import('pino-pretty')) as unknown as { default: typeof pretty }).default
  } catch {
    throw new PrettyUnavailableError('--log-format pretty needs the optional package pino-pretty (npm install pino-pretty)')
  }
  return pretty({ destination: fd, sync: true, colorize: fd === 1 ? process.stdout.isTTY : process.stderr.isTTY })
}
