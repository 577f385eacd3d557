/** Maps a storage unique-constraint failure to the caller-facing conflict it means. */
import { conflict } from '../errors.js'
import { UniqueConstraintError } from '../storage/port.js'

export async function withUniqueness<R>(write: () => Promise<R>, message: (fields: string[]) => string): Promise<R> {
  try {
    return await write()
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict(message(err.fields))
    throw err
  }
}

export const aliasTaken = (fields: string[]) => (fields.includes('alias') ? 'alias already used by another wallet of this tenant' : `duplicate ${fields.join(', ')}`)
