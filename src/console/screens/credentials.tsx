/**
 * Credentials: the tenant's stored credentials searched by issuer, subject, type, format and status, a page at a time
 * (the API's cursor: never all loaded); a credential's decoded view (JSON-LD and its Data Integrity proofs, JWT, SD-JWT
 * and its disclosures), Verify listing every named check, and revoke / suspend / unsuspend once confirmed.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { DidvaultClient, StoredCredential, WalletView } from '../../client/index.js'
import { actingAs } from '../session.js'
import type { ScreenProps } from '../screen.js'
import { Checks } from '../ui/checks.js'
import { ConfirmButton } from '../ui/confirm-button.js'
import { decodeJwt, decodeSdJwt } from '../ui/decode.js'
import { itemError } from '../ui/errors.js'
import { Table } from '../ui/table.js'

type Query = Parameters<DidvaultClient['getClaims']>[0]
type Acting = ReturnType<typeof actingAs>
type Verified = Awaited<ReturnType<DidvaultClient['verifyClaims']>>['vcs'][number]

const PAGE = 20

/** The credentials screen. */
export function CredentialsScreen({ client: signedIn, report }: ScreenProps) {
  // Fetch acts as a DID (its `x-did-auth` token, made with the tab's key for one of the tenant's wallets).
  const [wallets, setWallets] = useState<WalletView[]>([])
  const [client, setClient] = useState<Acting>()
  useEffect(() => {
    signedIn.getWallets({ limit: 100 }).then((page) => setWallets(page.wallets), report)
  }, [signedIn, report])
  const actAs = async (did: string) => {
    setClient(undefined)
    if (did === '') return
    try {
      setClient(actingAs(signedIn, (await signedIn.generateToken({ iss: did })).jwt))
    } catch (e) {
      report(e)
    }
  }
  const [query, setQuery] = useState<Query>({})
  const [rows, setRows] = useState<StoredCredential[]>([])
  // The cursors of the pages before this one (for Previous) and of the next.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined])
  const [next, setNext] = useState<string>()
  const [selected, setSelected] = useState<StoredCredential>()

  // The search the screen shows (read when the DID to read as changes) and the number of the latest page asked for: an
  // answer to an earlier ask (another DID's, another search's) never replaces a later one.
  const shown = useRef<Query>({})
  const asked = useRef(0)
  const load = useCallback(
    (q: Query, cursor: string | undefined) => {
      const ask = ++asked.current
      return client?.getClaims({ ...q, limit: PAGE, ...(cursor && { cursor }) }).then((page) => {
        if (ask !== asked.current) return
        setRows(page.vcs)
        setNext(page.nextCursor ?? undefined)
      }, report)
    },
    [client, report],
  )
  useEffect(() => {
    setCursors([undefined])
    setSelected(undefined)
    void load(shown.current, undefined)
  }, [load])

  const search = (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const text = (name: string) => ((data.get(name) as string | null) ?? '').trim()
    const q = {
      ...(text('issuer') && { issuer: text('issuer') }),
      ...(text('subject') && { subject: text('subject') }),
      ...(text('type') && { type: text('type') }),
      ...(text('format') && { format: text('format') }),
      ...(text('status') && { status: text('status') }),
    } as Query
    setQuery(q)
    shown.current = q
    setCursors([undefined])
    setSelected(undefined)
    void load(q, undefined)
  }
  const forward = () => {
    setCursors((c) => [...c, next])
    void load(query, next)
  }
  const back = () => {
    const earlier = cursors.slice(0, -1)
    setCursors(earlier)
    void load(query, earlier[earlier.length - 1])
  }

  return (
    <>
      <div class="toolbar">
        <label for="cred-actor">Read as DID</label>
        <select id="cred-actor" onChange={(e) => void actAs(e.currentTarget.value)}>
          <option value="">choose a wallet…</option>
          {wallets.map((w) => (
            <option key={w._id} value={w.did}>
              {w.alias ? `${w.alias} — ${w.did}` : w.did}
            </option>
          ))}
        </select>
        <span class="muted">Fetch lists what that DID may read: public credentials, those it stored, issued or is the subject of.</span>
      </div>
      <form class="toolbar" onSubmit={search} aria-label="Search credentials">
        <Field name="issuer" label="Issuer DID" />
        <Field name="subject" label="Subject DID" />
        <Field name="type" label="Type" />
        <span class="field">
          <label for="cred-format">Format</label>
          <select id="cred-format" name="format">
            <option value="">any</option>
            <option>JSON-LD</option>
            <option>JWT</option>
            <option>SD-JWT</option>
            <option>VC-JOSE</option>
          </select>
        </span>
        <span class="field">
          <label for="cred-status">Status</label>
          <select id="cred-status" name="status">
            <option value="">any</option>
            <option value="active">active</option>
            <option value="revoked">revoked</option>
            <option value="suspended">suspended</option>
          </select>
        </span>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Table
        caption={`Stored credentials, page ${cursors.length}`}
        rows={rows}
        rowKey={(c) => c._id}
        empty={client ? 'No credentials match.' : 'Pick a DID to read as: Fetch lists only what that DID may read.'}
        columns={[
          {
            title: 'Credential',
            cell: (c) => (
              <button type="button" class="link" onClick={() => setSelected(c)} aria-label={`Open credential ${c.id ?? c._id}`}>
                {c.id ?? c._id}
              </button>
            ),
          },
          { title: 'Format', cell: (c) => c.format },
          { title: 'Type', cell: (c) => c.type.join(', ') },
          { title: 'Issuer', cell: (c) => c.issuer ?? '—' },
          { title: 'Subject', cell: (c) => c.subject ?? '—' },
          { title: 'Stored', cell: (c) => c.createdAt },
        ]}
      />
      <div class="toolbar">
        <button type="button" disabled={cursors.length < 2} onClick={back}>
          Previous page
        </button>
        <button type="button" disabled={!next} onClick={forward}>
          Next page
        </button>
      </div>
      {selected && client && <CredentialView key={selected._id} client={client} report={report} credential={selected} />}
    </>
  )
}

function Field({ name, label }: { name: string; label: string }) {
  return (
    <span class="field">
      <label for={`cred-${name}`}>{label}</label>
      <input id={`cred-${name}`} name={name} />
    </span>
  )
}

interface CredentialViewProps {
  client: Acting
  report: (error: unknown) => void
  credential: StoredCredential
}

/** What Verify is given for a stored credential: its JSON-LD, JWT or SD-JWT. */
const verifyItemOf = (c: StoredCredential) => ('jsonld' in c ? { jsonld: c.jsonld } : 'jwt' in c ? { jwt: c.jwt } : { sdjwt: c.sdjwt })

/** One credential decoded, with Verify and the status actions. */
function CredentialView({ client, report, credential }: CredentialViewProps) {
  const [verified, setVerified] = useState<Verified>()
  const [done, setDone] = useState<string>()
  const verify = async () => {
    try {
      const { vcs } = await client.verifyClaims({ vcs: [verifyItemOf(credential)] })
      setVerified(vcs[0])
    } catch (e) {
      report(e)
    }
  }
  const setStatus = (purpose: 'revocation' | 'suspension', value: boolean, what: string) => async () => {
    try {
      const refused = itemError(await client.changeStatus({ items: [{ _id: credential._id, purpose, value }] }))
      if (refused) throw refused
      setDone(`${what}.`)
      setVerified(undefined)
    } catch (e) {
      report(e)
    }
  }
  return (
    <section aria-labelledby="credential-view">
      <h2 id="credential-view">Credential {credential.id ?? credential._id}</h2>
      <Decoded credential={credential} />
      <div class="toolbar">
        <button type="button" class="primary" onClick={() => void verify()}>
          Verify
        </button>
        <ConfirmButton
          label="Revoke"
          danger
          question="Revoke this credential? Revocation is final: verifiers will see it revoked."
          action={setStatus('revocation', true, 'Revoked')}
        />
        <ConfirmButton
          label="Suspend"
          question="Suspend this credential? Verifiers will see it suspended until it is unsuspended."
          action={setStatus('suspension', true, 'Suspended')}
        />
        <ConfirmButton
          label="Unsuspend"
          question="Lift this credential's suspension?"
          action={setStatus('suspension', false, 'Unsuspended')}
        />
        <span role="status">{done}</span>
      </div>
      {verified && (
        <div data-verified={String(verified.verified)}>
          <p class={verified.verified ? 'ok' : 'bad'}>
            {verified.verified ? 'Verified' : `Not verified${verified.error ? `: ${verified.error}` : ''}`}
          </p>
          <Checks checks={verified.checks} label="Checks" about={(c) => c.type} />
        </div>
      )}
    </section>
  )
}

/** The decoded view of a stored credential. */
function Decoded({ credential }: { credential: StoredCredential }) {
  if ('jsonld' in credential) {
    const { proof, ...document } = credential.jsonld
    const proofs = proof === undefined ? [] : Array.isArray(proof) ? proof : [proof]
    return (
      <>
        <h3>JSON-LD credential</h3>
        <Json value={document} label="Credential document" />
        <h3>Proofs ({proofs.length})</h3>
        <ul class="checks" data-proof-summary aria-label="Proof summary">
          {proofs.map((p: Record<string, unknown>, i) => (
            <li key={i}>{[p.cryptosuite ?? p.type, p.verificationMethod, p.created].filter((v) => typeof v === 'string').join(' · ')}</li>
          ))}
        </ul>
        <Json value={proofs} label="Proofs (Data Integrity or linked-data signatures)" />
      </>
    )
  }
  if ('jwt' in credential) {
    const { header, payload } = decodeJwt(credential.jwt)
    return (
      <>
        <h3>JWT header</h3>
        <Json value={header} label="JWT header" />
        <h3>JWT payload</h3>
        <Json value={payload} label="JWT payload" />
      </>
    )
  }
  const { header, payload, disclosures, keyBinding } = decodeSdJwt(credential.sdjwt)
  return (
    <>
      <h3>SD-JWT header</h3>
      <Json value={header} label="SD-JWT header" />
      <h3>SD-JWT payload</h3>
      <Json value={payload} label="SD-JWT payload" />
      <h3>Disclosures ({disclosures.length})</h3>
      <Table
        caption="Disclosures: claim name and value (their salts are not shown)"
        rows={disclosures.map((d, i) => ({ i, d: Array.isArray(d) ? (d as unknown[]) : [] }))}
        rowKey={(r) => String(r.i)}
        columns={[
          { title: 'Claim', cell: (r) => String(r.d.length === 3 ? r.d[1] : '(array element)') },
          { title: 'Value', cell: (r) => JSON.stringify(r.d[r.d.length - 1]) },
        ]}
      />
      {keyBinding && <p class="muted">Ends with a key-binding JWT.</p>}
    </>
  )
}

function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  )
}
