/**
 * A listing read as several queries one after the other, each served by its own index
 * (a union that one query with `or` would make the database plan as a walk over all of the
 * tenant's records). Pages run through the sources in order; the cursor names the source and
 * carries that source's own storage cursor.
 */
import { InvalidCursorError, type Page } from '../storage/port.js'

/** One query of a concatenated listing. Sources must not overlap (no record in two). */
export interface PageSource<T> {
  /** Stable name of the source within the listing (it goes into cursors). */
  key: string
  read(limit: number, cursor?: string): Promise<Page<T>>
}

interface Position {
  k: string
  c?: string
}

const encode = (position: Position) => Buffer.from(JSON.stringify(position)).toString('base64url')

function decode(cursor: string, keys: string[]): { index: number; inner?: string } {
  let position: Partial<Position> = {}
  try {
    position = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position> | null) ?? {}
  } catch {
    /* reported below */
  }
  const index = typeof position.k === 'string' ? keys.indexOf(position.k) : -1
  const wellFormed =
    index >= 0 &&
    (position.c === undefined || typeof position.c === 'string') &&
    encode({ k: position.k!, ...(position.c !== undefined && { c: position.c }) }) === cursor
  if (!wellFormed) throw new InvalidCursorError('invalid cursor: not a cursor of this listing')
  return { index, inner: position.c }
}

/** One page of at most `limit` items of `sources` read in order, from `cursor` (a previous page's `nextCursor`). */
export async function concatPage<T>(sources: PageSource<T>[], limit: number, cursor?: string): Promise<Page<T>> {
  const start =
    cursor === undefined
      ? { index: 0, inner: undefined }
      : decode(
          cursor,
          sources.map((s) => s.key),
        )
  const items: T[] = []
  for (let i = start.index; i < sources.length; i++) {
    const page = await sources[i].read(limit - items.length, i === start.index ? start.inner : undefined)
    items.push(...page.items)
    if (page.nextCursor !== undefined) return { items, nextCursor: encode({ k: sources[i].key, c: page.nextCursor }) }
    if (items.length === limit) {
      // Full at the end of a source: a cursor only if a later source has anything.
      for (let j = i + 1; j < sources.length; j++) {
        if ((await sources[j].read(1)).items.length > 0) return { items, nextCursor: encode({ k: sources[j].key }) }
      }
      return { items }
    }
  }
  return { items }
}
