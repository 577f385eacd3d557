/**
 * A presentation request (OID4VP): a DCQL query and the verifier's client identifier prefix; its QR code and
 * `openid4vp://` URI, and its result read again (Get a presentation result) every few seconds until the wallet
 * answered or the request expired.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { WalletView } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'
import { actingAs } from './acting.js'
import { PresentationResult, type PresentationResultView } from './presentation-result.js'
import { SvgImage } from './svg-image.js'
import { WalletSelect } from './wallet-select.js'

/** How often a pending result is read again, ms. */
export const POLL_MS = 2_000

const EXAMPLE_QUERY = JSON.stringify(
  {
    credentials: [
      {
        id: 'identity',
        format: 'dc+sd-jwt',
        meta: { vct_values: ['https://credentials.example.com/identity'] },
        claims: [{ path: ['given_name'] }],
      },
    ],
  },
  null,
  2,
)

type Prefix = 'redirect_uri' | 'decentralized_identifier' | 'x509_san_dns' | 'x509_hash'

interface Made {
  id: string
  uri: string
  qr: string
  expiresAt: string
}

type Result = PresentationResultView

export function RequestPanel({ props, wallets }: { props: ScreenProps; wallets: WalletView[] }) {
  const [query, setQuery] = useState(EXAMPLE_QUERY)
  const [prefix, setPrefix] = useState<Prefix>('redirect_uri')
  const [verifier, setVerifier] = useState('')
  const [made, setMade] = useState<Made | undefined>()
  const [result, setResult] = useState<Result | undefined>()
  const [busy, setBusy] = useState(false)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>()

  useEffect(() => {
    if (verifier === '' && wallets[0] !== undefined) setVerifier(wallets[0].did)
  }, [wallets])
  useEffect(() => () => clearTimeout(timer.current), [])

  const poll = (id: string) => {
    clearTimeout(timer.current)
    const check = async () => {
      try {
        const read = (await props.client.getPresentationResult({ id })) as Result
        setResult(read)
        if (read.status === 'pending') poll(id)
      } catch (err) {
        props.report(err)
      }
    }
    timer.current = setTimeout(() => void check(), POLL_MS)
  }

  const create = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setMade(undefined)
    setResult(undefined)
    clearTimeout(timer.current)
    try {
      let dcqlQuery: { credentials: Array<Record<string, unknown>> }
      try {
        dcqlQuery = JSON.parse(query) as typeof dcqlQuery
      } catch {
        throw new Error('DCQL query: not JSON')
      }
      const signed = prefix === 'decentralized_identifier'
      const ops = signed ? await actingAs(props, verifier) : props.client
      const clientId = signed ? { prefix, did: verifier } : { prefix }
      const answer = await ops.createPresentationRequest({ dcqlQuery, clientId })
      setMade({ id: answer.id, uri: answer.authorizationRequest.uri, qr: answer.qr, expiresAt: answer.expiresAt })
      setResult({ status: 'pending' })
      poll(answer.id)
    } catch (err) {
      props.report(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="card" aria-labelledby="request-heading">
      <h3 id="request-heading">Presentation request</h3>
      <form onSubmit={(event) => void create(event)}>
        <p class="field">
          <label for="request-query">DCQL query (JSON)</label>
          <textarea id="request-query" rows={8} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </p>
        <p class="field">
          <label for="request-prefix">Verifier identified by</label>
          <select id="request-prefix" value={prefix} onChange={(e) => setPrefix(e.currentTarget.value as Prefix)}>
            <option value="redirect_uri">redirect_uri (unsigned request)</option>
            <option value="decentralized_identifier">decentralized_identifier (signed by a DID of the tenant)</option>
            <option value="x509_san_dns">x509_san_dns (the operator's certificate)</option>
            <option value="x509_hash">x509_hash (the operator's certificate)</option>
          </select>
        </p>
        {prefix === 'decentralized_identifier' && (
          <WalletSelect id="request-verifier" label="Verifier DID (acts as)" wallets={wallets} value={verifier} onChange={setVerifier} />
        )}
        <button type="submit" disabled={busy}>
          Create request
        </button>
      </form>
      {made && (
        <div class="result request">
          <SvgImage svg={made.qr} alt="QR code of the presentation request" class="qr request-qr" />
          <p>
            Request URI: <code class="mono request-uri">{made.uri}</code>
          </p>
          <p>Expires {made.expiresAt}</p>
        </div>
      )}
      {result && <PresentationResult result={result} />}
    </section>
  )
}
