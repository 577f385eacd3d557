/** Request schema of Generate Token (`POST /did-auth-jwt`). */
import { z } from 'zod'
import { did, durationMs, isoDate, timestampMs } from './common.js'

export const expiration = {
  exp: timestampMs.optional(),
  expiresIn: durationMs.optional(),
  expirationDate: isoDate.optional(),
}

export const generateToken = z
  .strictObject({ iss: did, ...expiration })
  .refine((v) => [v.exp, v.expiresIn, v.expirationDate].filter((x) => x !== undefined).length <= 1, {
    message: 'give at most one of exp, expiresIn, expirationDate',
  })
