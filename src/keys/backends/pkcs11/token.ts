/**
 * A logged-in PKCS#11 token: the module loaded once per process and path (shared, reference-counted: PKCS#11 allows
 * one C_Initialize per library and process), the slot found by its token label, a user login with the PIN (kept in
 * memory only, for logging in again) and a pool of read-write sessions. Operations borrow a session
 * ({@link Pkcs11Token.withSession}); one that fails because the token went away (device removed, token not present,
 * session or library gone — or, for tokens that say so less clearly, a failure after which the token's info cannot be
 * read) takes the token down: callers get 503 `SERVICE_UNAVAILABLE` and a background loop re-initializes the module
 * (C_Finalize, C_Initialize, the slot, a login, a fresh pool) with a growing delay until the token answers again.
 */
import { createHash } from 'node:crypto'
import pkcs11js from 'pkcs11js'
import { IdentityError } from '../../../errors.js'

type Handle = Buffer

/** What {@link Pkcs11Token.open} is given. */
export interface Pkcs11TokenOptions {
  /** Path of the PKCS#11 module (`hsm.module`), e.g. `/usr/lib/softhsm/libsofthsm2.so`. */
  module: string
  /** CKA_LABEL of the token (`hsm.tokenLabel`). */
  tokenLabel: string
  /** The user PIN (`hsm.pinFile` / `DIDVAULT_HSM_PIN`): kept in memory, never logged or put in an error. */
  pin: string
  /** Sessions in the pool (default 4). */
  sessions?: number
  /** Re-initialization delays: the first, doubled up to the last (default 200 ms … 5 s). */
  retry?: { initialMs?: number; maxMs?: number }
  /** Told of an outage and of each failed recovery (the error names no PIN). */
  onError?: (operation: string, error: unknown) => void
}

/** A start that cannot go on: `setting` names the configuration setting to fix. */
export class Pkcs11StartError extends Error {
  constructor(
    message: string,
    /** `hsm.module`, `hsm.tokenLabel` or `hsm.pinFile`. */
    readonly setting: 'hsm.module' | 'hsm.tokenLabel' | 'hsm.pinFile',
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'Pkcs11StartError'
  }
}

/** The CKR_ code of a pkcs11js error; undefined for anything else. */
export function pkcs11Code(err: unknown): number | undefined {
  return err instanceof pkcs11js.Pkcs11Error ? err.code : undefined
}

/** The CKR_ name of a pkcs11js error (`CKR_PIN_INCORRECT`), or the error's class name: what logs and messages show. */
export function pkcs11ErrorName(err: unknown): string {
  if (err instanceof pkcs11js.Pkcs11Error && /^CKR_\w+$/.test(err.message)) return err.message
  return err instanceof Error ? err.name : typeof err
}

/** Codes that say the token, its slot, the session or the library is gone. */
const GONE = new Set([
  pkcs11js.CKR_DEVICE_REMOVED,
  pkcs11js.CKR_TOKEN_NOT_PRESENT,
  pkcs11js.CKR_TOKEN_NOT_RECOGNIZED,
  pkcs11js.CKR_SESSION_HANDLE_INVALID,
  pkcs11js.CKR_SESSION_CLOSED,
  pkcs11js.CKR_CRYPTOKI_NOT_INITIALIZED,
  pkcs11js.CKR_SLOT_ID_INVALID,
  pkcs11js.CKR_DEVICE_ERROR,
  pkcs11js.CKR_USER_NOT_LOGGED_IN,
])

/** Codes after which the token is asked whether it is still there (SoftHSM2 answers a vanished token directory so). */
const MAYBE_GONE = new Set([
  pkcs11js.CKR_GENERAL_ERROR,
  pkcs11js.CKR_FUNCTION_FAILED,
  pkcs11js.CKR_DEVICE_MEMORY,
  pkcs11js.CKR_OBJECT_HANDLE_INVALID,
  pkcs11js.CKR_KEY_HANDLE_INVALID,
])

/** The answer to every call while the token is away. */
export const tokenUnavailable = () => new IdentityError('SERVICE_UNAVAILABLE', 'the HSM token is unavailable, retry later')

/** One loaded module per path in this process, initialized once, shared by every token opened on it. */
interface Library {
  path: string
  pkcs11: pkcs11js.PKCS11
  users: number
  /** Bumped by each re-initialization: a token that saw an older one only opens new sessions. */
  generation: number
  /**
   * A hash of the PIN each token (by label) was logged in with: the login is the process's, so a second open of a
   * logged-in token is told CKR_USER_ALREADY_LOGGED_IN and its PIN is checked against this instead.
   */
  logins: Map<string, string>
}
const libraries = new Map<string, Library>()

function loadLibrary(path: string): Library {
  let library = libraries.get(path)
  if (library) {
    library.users++
    return library
  }
  const pkcs11 = new pkcs11js.PKCS11()
  try {
    pkcs11.load(path)
  } catch (err) {
    throw new Pkcs11StartError(`the PKCS#11 module ${path} cannot be loaded (${pkcs11ErrorName(err)}); check hsm.module`, 'hsm.module', {
      cause: err,
    })
  }
  try {
    initialize(pkcs11)
  } catch (err) {
    pkcs11.close()
    throw err
  }
  library = { path, pkcs11, users: 1, generation: 0, logins: new Map() }
  libraries.set(path, library)
  return library
}

function initialize(pkcs11: pkcs11js.PKCS11): void {
  try {
    pkcs11.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK })
  } catch (err) {
    if (pkcs11Code(err) !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw err
  }
}

function releaseLibrary(library: Library): void {
  if (--library.users > 0) return
  libraries.delete(library.path)
  try {
    library.pkcs11.C_Finalize()
  } catch {
    // Already finalized (the token went away and the last re-initialization failed).
  }
  library.pkcs11.close()
}

/** A pooled session and the library generation it was opened under. */
interface Session {
  handle: Handle
  generation: number
}

export class Pkcs11Token {
  readonly #options: Required<Omit<Pkcs11TokenOptions, 'retry' | 'onError'>> & { initialMs: number; maxMs: number }
  readonly #onError: (operation: string, error: unknown) => void
  #library: Library | undefined
  #slot: Handle | undefined
  #idle: Session[] = []
  #all: Session[] = []
  #waiting: { resolve: (session: Session) => void; reject: (err: unknown) => void }[] = []
  #up = false
  #closed = false
  #recovering: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  /** Bumped each time the token comes up: handles cached under an older epoch are stale. */
  #epoch = 0
  /** The library generation this token last connected under. */
  #generation = -1

  private constructor(options: Pkcs11TokenOptions) {
    const sessions = options.sessions ?? 4
    if (!Number.isInteger(sessions) || sessions < 1 || sessions > 256) throw new RangeError('hsm.sessions must be an integer from 1 to 256')
    this.#options = {
      module: options.module,
      tokenLabel: options.tokenLabel,
      pin: options.pin,
      sessions,
      initialMs: options.retry?.initialMs ?? 200,
      maxMs: options.retry?.maxMs ?? 5_000,
    }
    this.#onError = options.onError ?? (() => undefined)
  }

  /** Loads the module, finds the token, logs in and opens the pool; a wrong PIN or a missing token is a {@link Pkcs11StartError}. */
  static open(options: Pkcs11TokenOptions): Pkcs11Token {
    if (typeof options.pin !== 'string' || options.pin === '')
      throw new Pkcs11StartError('no HSM PIN given; set hsm.pinFile (or DIDVAULT_HSM_PIN)', 'hsm.pinFile')
    if (typeof options.tokenLabel !== 'string' || options.tokenLabel === '')
      throw new Pkcs11StartError('no HSM token label given; set hsm.tokenLabel', 'hsm.tokenLabel')
    const token = new Pkcs11Token(options)
    try {
      token.#library = loadLibrary(options.module)
      token.#connect()
    } catch (err) {
      token.#closeSessions()
      if (token.#library) releaseLibrary(token.#library)
      token.#library = undefined
      throw token.#startError(err)
    }
    return token
  }

  /** The library's constants and calls (for the backend's templates). */
  get pkcs11(): pkcs11js.PKCS11 {
    if (!this.#library) throw tokenUnavailable()
    return this.#library.pkcs11
  }

  /** Changes each time the token comes up again: object handles found before are stale. */
  get epoch(): number {
    return this.#epoch
  }

  #startError(err: unknown): Error {
    if (err instanceof Pkcs11StartError) return err
    const code = pkcs11Code(err)
    const label = JSON.stringify(this.#options.tokenLabel)
    if (code === pkcs11js.CKR_PIN_INCORRECT || code === pkcs11js.CKR_PIN_INVALID || code === pkcs11js.CKR_PIN_LEN_RANGE)
      return new Pkcs11StartError(
        `the HSM token ${label} refused the PIN (${pkcs11ErrorName(err)}); check hsm.pinFile (or DIDVAULT_HSM_PIN)`,
        'hsm.pinFile',
        {
          cause: err,
        },
      )
    if (code === pkcs11js.CKR_PIN_LOCKED)
      return new Pkcs11StartError(
        `the HSM token ${label}'s user PIN is locked (CKR_PIN_LOCKED); unlock it with the SO PIN`,
        'hsm.pinFile',
        { cause: err },
      )
    return new Pkcs11StartError(
      `the HSM token ${label} cannot be opened (${pkcs11ErrorName(err)}); check hsm.tokenLabel and hsm.module`,
      'hsm.tokenLabel',
      {
        cause: err,
      },
    )
  }

  /** Finds the slot, logs in and fills the pool (the library initialized). */
  #connect(): void {
    const { pkcs11 } = this.#library!
    const { tokenLabel, pin, sessions } = this.#options
    const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === tokenLabel)
    if (!slot) {
      throw new Pkcs11StartError(
        `no HSM token labelled ${JSON.stringify(tokenLabel)} in ${this.#options.module}; check hsm.tokenLabel`,
        'hsm.tokenLabel',
      )
    }
    this.#slot = slot
    const generation = this.#library!.generation
    this.#generation = generation
    for (let i = 0; i < sessions; i++) {
      const handle = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION)
      this.#all.push({ handle, generation })
      // The login is the application's, shared by its sessions with the token: once is enough (a second token
      // object on the same library, already logged in, is told so).
      if (i === 0) {
        const pinHash = createHash('sha256').update(`${tokenLabel}\0${pin}`).digest('hex')
        try {
          pkcs11.C_Login(handle, pkcs11js.CKU_USER, pin)
          this.#library!.logins.set(tokenLabel, pinHash)
        } catch (err) {
          if (pkcs11Code(err) !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) throw err
          const known = this.#library!.logins.get(tokenLabel)
          if (known !== undefined && known !== pinHash)
            throw new pkcs11js.Pkcs11Error('CKR_PIN_INCORRECT', pkcs11js.CKR_PIN_INCORRECT, 'C_Login')
        }
      }
    }
    this.#idle = [...this.#all]
    this.#epoch++
    this.#up = true
    this.#dispatch()
  }

  /**
   * Runs `fn` on a pooled session. A failure that says the token is gone takes the token down and answers 503; other
   * failures are `fn`'s own.
   */
  async withSession<T>(operation: string, fn: (pkcs11: pkcs11js.PKCS11, session: Handle) => Promise<T> | T): Promise<T> {
    const session = await this.#acquire()
    try {
      return await fn(this.#library!.pkcs11, session.handle)
    } catch (err) {
      if (err instanceof IdentityError) throw err
      if (this.#isGone(err, session)) {
        this.#down(operation, err)
        throw tokenUnavailable()
      }
      throw err
    } finally {
      this.#release(session)
    }
  }

  /** Whether the token answers now (C_GetTokenInfo); a token that does not is taken down. */
  async ready(): Promise<boolean> {
    if (!this.#up || this.#closed) return false
    if (this.#tokenAnswers()) return true
    this.#down('readiness probe', new Error('the token does not answer C_GetTokenInfo'))
    return false
  }

  /** Whether the token answers C_GetTokenInfo now (no state change). */
  answers(): boolean {
    return this.#up && this.#tokenAnswers()
  }

  #tokenAnswers(): boolean {
    try {
      const info = this.#library!.pkcs11.C_GetTokenInfo(this.#slot!)
      return info.label.trim() === this.#options.tokenLabel
    } catch {
      return false
    }
  }

  #isGone(err: unknown, session: Session): boolean {
    if (!this.#up || session.generation !== this.#library?.generation) return true
    const code = pkcs11Code(err)
    if (code === undefined) return false
    if (GONE.has(code)) return true
    return MAYBE_GONE.has(code) && !this.#tokenAnswers()
  }

  #acquire(): Promise<Session> {
    if (this.#closed || !this.#up) {
      if (!this.#closed) this.#recover()
      return Promise.reject(tokenUnavailable())
    }
    const session = this.#idle.pop()
    if (session) return Promise.resolve(session)
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }))
  }

  #release(session: Session): void {
    if (!this.#all.includes(session)) return
    this.#idle.push(session)
    this.#dispatch()
  }

  #dispatch(): void {
    while (this.#waiting.length > 0 && this.#idle.length > 0) this.#waiting.shift()!.resolve(this.#idle.pop()!)
  }

  /** Takes the token down: the pool is dropped, waiting callers are answered 503, and recovery starts. */
  #down(operation: string, err: unknown): void {
    if (!this.#up) return
    this.#up = false
    this.#onError(`HSM token ${JSON.stringify(this.#options.tokenLabel)} unavailable (${operation}: ${pkcs11ErrorName(err)})`, err)
    this.#closeSessions()
    for (const waiter of this.#waiting.splice(0)) waiter.reject(tokenUnavailable())
    this.#recover()
  }

  #closeSessions(): void {
    const library = this.#library
    for (const session of this.#all.splice(0)) {
      try {
        if (library && session.generation === library.generation) library.pkcs11.C_CloseSession(session.handle)
      } catch {
        // The session went with the token.
      }
    }
    this.#idle = []
  }

  /** Starts the background re-initialization (once). */
  #recover(): void {
    if (this.#recovering || this.#closed) return
    this.#recovering = new Promise<void>((resolve) => {
      let delay = this.#options.initialMs
      const attempt = () => {
        this.#timer = undefined
        if (this.#closed) return resolve()
        try {
          this.#reinitialize()
          this.#recovering = undefined
          return resolve()
        } catch (err) {
          this.#closeSessions()
          this.#onError(`HSM token ${JSON.stringify(this.#options.tokenLabel)} not back yet (${pkcs11ErrorName(err)})`, err)
        }
        delay = Math.min(delay * 2, this.#options.maxMs)
        this.#timer = setTimeout(attempt, delay)
        this.#timer.unref()
      }
      this.#timer = setTimeout(attempt, delay)
      this.#timer.unref()
    })
  }

  /**
   * C_Finalize and C_Initialize — unless another token on the same library already did since this one's sessions were
   * opened — then the slot, the login and a fresh pool.
   */
  #reinitialize(): void {
    const library = this.#library!
    if (this.#generation === library.generation) {
      try {
        library.pkcs11.C_Finalize()
      } catch {
        // Not initialized (a failed C_Initialize before).
      }
      library.generation++
      initialize(library.pkcs11)
    }
    // A failure from here on finalizes again at the next attempt.
    this.#generation = library.generation
    this.#connect()
  }

  /** Closes the pool and releases the module (C_Finalize when no other token uses it). */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#up = false
    if (this.#timer) clearTimeout(this.#timer)
    for (const waiter of this.#waiting.splice(0)) waiter.reject(tokenUnavailable())
    this.#closeSessions()
    if (this.#library) releaseLibrary(this.#library)
    this.#library = undefined
  }
}
