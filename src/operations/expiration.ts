/** The three ways the spec lets a caller say when something expires. */
import { invalid } from '../errors.js'

export interface ExpirationInput {
  /** UNIX timestamp, ms. */
  exp?: number
  /** Offset from issuance, ms. */
  expiresIn?: number
  /** ISO 8601 date. */
  expirationDate?: string
}

/** The expiration (ms) an input names, or undefined when it names none. Two at once are 422. */
export function expirationOf(input: ExpirationInput, issuedAt: number, field = ''): number | undefined {
  const given = (['exp', 'expiresIn', 'expirationDate'] as const).filter((k) => input[k] !== undefined)
  if (given.length > 1) throw invalid(`${field}give at most one of exp, expiresIn, expirationDate`)
  if (input.exp !== undefined) return input.exp
  if (input.expiresIn !== undefined) return issuedAt + input.expiresIn
  if (input.expirationDate !== undefined) return Date.parse(input.expirationDate)
  return undefined
}
