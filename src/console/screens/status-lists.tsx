/**
 * Status lists: each list of the tenant (List Status Lists) with its bitmap — the signed list the service publishes
 * (Get a Status List), decoded here — set entries highlighted, its signature date and ETag.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ScreenProps } from '../screen.js'
import { listStatusLists, type StatusListItem } from './ops-api.js'
import { decodeStatusList, type DecodedList } from './status-bits.js'

/** Most set entries named in the text beside a bitmap. */
const MAX_NAMED = 100

interface Loaded {
  list: StatusListItem
  decoded?: DecodedList
  etag?: string
  contentType?: string
  error?: string
}

/** Cells per row and their size in CSS pixels, by the list's size. */
function layout(size: number): { columns: number; cell: number } {
  if (size <= 1_024) return { columns: 32, cell: 12 }
  if (size <= 16_384) return { columns: 128, cell: 4 }
  return { columns: 512, cell: 1 }
}

function Bitmap({ id, decoded }: { id: string; decoded: DecodedList }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const { columns, cell } = layout(decoded.size)
  const rows = Math.ceil(decoded.size / columns)
  useEffect(() => {
    const context = canvas.current?.getContext('2d')
    if (!context) return
    context.fillStyle = '#e8ecf1'
    context.fillRect(0, 0, columns * cell, rows * cell)
    context.fillStyle = '#c62828'
    const gap = cell >= 4 ? 1 : 0
    for (const index of decoded.setIndexes(Number.MAX_SAFE_INTEGER)) {
      context.fillRect((index % columns) * cell, Math.floor(index / columns) * cell, cell - gap, cell - gap)
    }
  }, [decoded, columns, cell, rows])
  const set = decoded.setIndexes(Number.MAX_SAFE_INTEGER).length
  return (
    <canvas
      ref={canvas}
      id={`bitmap-${id}`}
      class="bitmap"
      width={columns * cell}
      height={rows * cell}
      data-columns={columns}
      data-cell={cell}
      role="img"
      aria-label={`Bitmap of status list ${id}: ${set} of ${decoded.size} entries set`}
    />
  )
}

function ListCard({ loaded }: { loaded: Loaded }) {
  const { list, decoded } = loaded
  const named = decoded?.setIndexes(MAX_NAMED) ?? []
  return (
    <section class="card status-list" aria-labelledby={`list-${list.id}`} data-list-id={list.id}>
      <h3 id={`list-${list.id}`}>List {list.id}</h3>
      <dl class="facts">
        <dt>Purpose</dt>
        <dd>{list.purpose ?? '—'}</dd>
        <dt>Format</dt>
        <dd>{list.format ?? list.mechanism ?? loaded.contentType ?? '—'}</dd>
        <dt>Issuer</dt>
        <dd class="mono">{list.issuer ?? '—'}</dd>
        <dt>Entries</dt>
        <dd>{decoded?.size ?? list.size ?? '—'}</dd>
        <dt>Signed</dt>
        <dd class="signed-at">{decoded?.signedAt ?? list.signedAt ?? 'not published yet'}</dd>
        <dt>ETag</dt>
        <dd class="mono etag">{loaded.etag ?? list.etag ?? '—'}</dd>
      </dl>
      {loaded.error !== undefined && <p class="error">Could not read the published list: {loaded.error}</p>}
      {decoded && <Bitmap id={list.id} decoded={decoded} />}
      {decoded && (
        <p class="set-entries">
          Set entries{named.length === MAX_NAMED ? ` (first ${MAX_NAMED})` : ''}: {named.length === 0 ? 'none' : named.join(', ')}
        </p>
      )}
    </section>
  )
}

/** The published list of `list`, decoded; the error as text when it cannot be read. */
async function load(props: ScreenProps, list: StatusListItem): Promise<Loaded> {
  try {
    const served = await props.client.getStatusList({ listId: list.id })
    return {
      list,
      etag: served.etag,
      contentType: served.contentType,
      decoded: await decodeStatusList(served.document, served.contentType),
    }
  } catch (err) {
    return { list, error: err instanceof Error ? err.message : String(err) }
  }
}

export function StatusListsScreen(props: ScreenProps) {
  const [lists, setLists] = useState<Loaded[]>([])
  const [cursor, setCursor] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)

  const fetchPage = async (from?: string) => {
    setBusy(true)
    try {
      const page = await listStatusLists(props, from)
      const loaded = await Promise.all(page.lists.map((list) => load(props, list)))
      setLists((before) => (from === undefined ? loaded : [...before, ...loaded]))
      setCursor(page.nextCursor)
    } catch (err) {
      props.report(err)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => void fetchPage(), [])

  return (
    <div class="screen status-lists">
      <p>
        Each status list of the tenant as its published, signed document says: set entries (revoked or suspended credentials) in red, in
        index order left to right, top to bottom.
      </p>
      <p>
        <button type="button" onClick={() => void fetchPage()} disabled={busy}>
          Reload
        </button>
      </p>
      {!busy && lists.length === 0 && <p>No status list yet: one is made when a credential with a status entry is signed.</p>}
      {lists.map((loaded) => (
        <ListCard key={loaded.list.id} loaded={loaded} />
      ))}
      {cursor !== undefined && (
        <button type="button" onClick={() => void fetchPage(cursor)} disabled={busy}>
          More lists
        </button>
      )}
      <p role="status" aria-live="polite" class="busy">
        {busy ? 'Loading…' : ''}
      </p>
    </div>
  )
}
