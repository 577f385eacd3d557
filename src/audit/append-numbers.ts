/**
 * Append numbers: what orders the audit records an act's transaction appends, unique across
 * processes and roughly in time order, drawn from no shared row (an act's transaction must touch
 * nothing every act of the tenant touches). A number is the wall-clock time in ms, a random nonce
 * of this process and a counter, so two processes never draw the same one and numbers of one
 * process only grow. Across processes the order is only as good as their clocks: it orders the
 * records one sequencer run chains, and is never the chain's seq.
 */
import { randomBytes } from 'node:crypto'

/** Digits of the time part: ms since the epoch fit in 15 digits until the year 33658. */
const TIME_DIGITS = 15

/** The time part of the append numbers drawn at `ms`. */
const appendNumberAt = (ms: number): string => Math.max(0, Math.floor(ms)).toString().padStart(TIME_DIGITS, '0')

/** The wall-clock time (ms) an append number was drawn at. */
export const timeOfAppendNumber = (append: string): number => Number(append.slice(0, TIME_DIGITS))

/** Draws append numbers for one process (one per trail). */
export class AppendNumbers {
  readonly #nonce = randomBytes(6).toString('hex')
  #time = 0
  #counter = 0

  /** The next number: later than every number this instance drew before, whatever the clock does. */
  next(): string {
    const now = Math.max(Date.now(), this.#time)
    if (now !== this.#time) {
      this.#time = now
      this.#counter = 0
    }
    this.#counter += 1
    return `${appendNumberAt(now)}-${this.#nonce}-${this.#counter.toString(36).padStart(6, '0')}`
  }
}
