/**
 * A wallet's resolved DID document and its versions: the current document first, then earlier and later ones asked
 * of Resolve DID by `versionId` (DID Core §3.2.1). A document's version is its metadata's `versionId` (none: version 0,
 * before any change); the one before it is the document as of `versionId − 1` (an event sequence number of the
 * embedded registry, a block number on chain: either way the state before that change), the one after it is the
 * metadata's `nextVersionId`. Only the latest ask's answer is shown. The component is of one DID: its parent keys it by
 * the DID (`key={did}`), so another DID is a new component, starting at its current document.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { DidvaultClient } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'

type Resolution = Awaited<ReturnType<DidvaultClient['resolveDid']>>

interface DidVersionsProps {
  client: DidvaultClient
  report: ScreenProps['report']
  did: string
}

/** The metadata of a resolution as the version controls read it. */
interface VersionMetadata {
  versionId?: string
  updated?: string
  nextVersionId?: string
  deactivated?: boolean
}

const metadataOf = (resolution: Resolution | undefined): VersionMetadata =>
  (resolution as { didDocumentMetadata?: VersionMetadata } | undefined)?.didDocumentMetadata ?? {}

/** The version number of a document's metadata: its `versionId` as an integer, 0 without one; undefined otherwise. */
function versionNumber(metadata: VersionMetadata): number | undefined {
  if (metadata.versionId === undefined) return 0
  return /^\d{1,15}$/.test(metadata.versionId) ? Number(metadata.versionId) : undefined
}

/** The resolved DID document of `did`, with controls to step through its versions. */
export function DidVersions({ client, report, did }: DidVersionsProps) {
  // undefined: the current document; a number: the document as of that version.
  const [asked, setAsked] = useState<number>()
  const [resolution, setResolution] = useState<Resolution>()
  const latest = useRef(0)
  useEffect(() => {
    const ask = ++latest.current
    setResolution(undefined)
    client.resolveDid({ did, ...(asked !== undefined && { versionId: String(asked) }) }).then(
      (answer) => ask === latest.current && setResolution(answer),
      (err: unknown) => ask === latest.current && report(err),
    )
  }, [client, report, did, asked])

  const metadata = metadataOf(resolution)
  const shown = versionNumber(metadata)
  const next =
    metadata.nextVersionId !== undefined && /^\d{1,15}$/.test(metadata.nextVersionId) ? Number(metadata.nextVersionId) : undefined
  const label = !resolution
    ? 'Resolving…'
    : `Version ${metadata.versionId ?? '0 (before any change)'}` +
      (metadata.updated !== undefined ? `, updated ${metadata.updated}` : '') +
      (asked === undefined ? ' — current' : '') +
      (metadata.deactivated === true ? ' — deactivated' : '')
  return (
    <>
      <h3>Resolved DID document</h3>
      <p data-did-version aria-live="polite">
        {label}
      </p>
      <div class="actions" role="group" aria-label="DID document versions">
        <button
          type="button"
          disabled={!resolution || shown === undefined || shown === 0}
          onClick={() => shown !== undefined && setAsked(shown - 1)}
        >
          Earlier version
        </button>
        <button type="button" disabled={!resolution || next === undefined} onClick={() => next !== undefined && setAsked(next)}>
          Later version
        </button>
        <button type="button" disabled={asked === undefined} onClick={() => setAsked(undefined)}>
          Current version
        </button>
      </div>
      <pre data-did-document tabIndex={0} aria-label="Resolved DID document">
        {resolution ? JSON.stringify(resolution, null, 2) : 'Resolving…'}
      </pre>
    </>
  )
}
