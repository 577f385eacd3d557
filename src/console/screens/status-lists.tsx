/**
 * Status lists: each list of the tenant (List Status Lists with `withBits`) with its bitmap — its current statuses,
 * set entries highlighted — the signature date and ETag of its published signed list, and whether a change waits to be
 * signed.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { StatusListSummary } from '../../status/schemas.js'
import type { ScreenProps } from '../screen.js'
import { listBits, type ListBits } from './status-bits.js'
import './operations.css'

/** Most set entries named in the text beside a bitmap. */
const MAX_NAMED = 100

interface Loaded {
  list: StatusListSummary
  bits?: ListBits
}

/** Cells per row and their size in CSS pixels, by the list's size. */
function layout(size: number): { columns: number; cell: number } {
  if (size <= 1_024) return { columns: 32, cell: 12 }
  if (size <= 16_384) return { columns: 128, cell: 4 }
  return { columns: 512, cell: 1 }
}

function Bitmap({ id, decoded }: { id: string; decoded: ListBits }) {
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
  const { list, bits } = loaded
  const named = bits?.setIndexes(MAX_NAMED) ?? []
  return (
    <section class="card status-list" aria-labelledby={`list-${list.id}`} data-list-id={list.id}>
      <h2 id={`list-${list.id}`}>List {list.id}</h2>
      <dl class="facts">
        <dt>Purpose</dt>
        <dd>{list.purpose}</dd>
        <dt>Format</dt>
        <dd>
          {list.format} ({list.mechanism})
        </dd>
        <dt>Issuer</dt>
        <dd class="mono">{list.issuer}</dd>
        <dt>Entries</dt>
        <dd>
          {list.allocated} allocated of {list.size}
          {list.full && ' (full)'}
        </dd>
        <dt>Signed</dt>
        <dd class="signed-at">
          {list.signedAt ?? 'not published yet'}
          {list.pending && ' — a change waits to be signed'}
        </dd>
        <dt>ETag</dt>
        <dd class="mono etag">{list.etag ?? '—'}</dd>
      </dl>
      {bits && <Bitmap id={list.id} decoded={bits} />}
      {bits && (
        <p class="set-entries">
          Set entries{named.length === MAX_NAMED ? ` (first ${MAX_NAMED})` : ''}: {named.length === 0 ? 'none' : named.join(', ')}
        </p>
      )}
    </section>
  )
}

export function StatusListsScreen(props: ScreenProps) {
  const [lists, setLists] = useState<Loaded[]>([])
  const [cursor, setCursor] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)

  const fetchPage = async (from?: string) => {
    setBusy(true)
    try {
      const page = await props.client.listStatusLists({ withBits: true, limit: 50, ...(from !== undefined && { cursor: from }) })
      const loaded = page.lists.map((list) => ({ list, ...(list.bits !== undefined && { bits: listBits(list.bits, list.size) }) }))
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
        Each status list of the tenant with its current statuses: set entries (revoked or suspended credentials) in red, in index order left
        to right, top to bottom. The signed list the service publishes follows within its publication interval.
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
