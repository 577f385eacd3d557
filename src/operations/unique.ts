/** Maps a storage unique-constraint failure to the caller-facing conflict it means. */
import { conflict } from '../errors.js'
import { UniqueConstraintError } from '../storage/port.js'

/** Runs `write`; a unique-constraint failure becomes a 422 CONFLICT with the message `describe` gives for the fields. */
export async function uniqueOr<R>(write: () => Promise<R>, describe: (fields: string[]) => string): Promise<R> {
  try {
    return await write()
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict(describe(err.fields))
    throw err
  }
}

export const aliasConflict = (fields: string[]) =>
  fields.includes('alias') ? 'alias already used by another wallet of this tenant' : `duplicate ${fields.join(', ')}`
