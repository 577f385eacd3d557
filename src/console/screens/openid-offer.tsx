/**
 * A Credential Offer (OID4VCI, pre-authorized code): one of the tenant's credential configurations with the claims
 * typed here, made while acting as the configuration's issuing DID (a DID-auth token the service mints for it); its QR
 * code, its `openid-credential-offer://` URI and, when asked for, the PIN — shown this once.
 */
import { useEffect, useState } from 'preact/hooks'
import type { WalletView } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'
import { actingAs } from './acting.js'
import { SvgImage } from './svg-image.js'
import { WalletSelect } from './wallet-select.js'

interface Configuration {
  id: string
  issuingDid: string
  format: string
  vct?: string
  claims?: Array<{ path: unknown[] }>
}

interface Offer {
  offerUri: string
  qr: string
  expiresAt: string
  txCode?: string
}

/** A claims object to start from: each top-level claim the configuration describes, empty. */
const claimsTemplate = (configuration: Configuration | undefined): string =>
  JSON.stringify(
    Object.fromEntries((configuration?.claims ?? []).filter((c) => typeof c.path[0] === 'string').map((c) => [c.path[0] as string, ''])),
    null,
    2,
  )

export function OfferPanel({ props, wallets }: { props: ScreenProps; wallets: WalletView[] }) {
  const [configurations, setConfigurations] = useState<Configuration[]>([])
  const [chosen, setChosen] = useState('')
  const [issuer, setIssuer] = useState('')
  const [claims, setClaims] = useState('{}')
  const [pin, setPin] = useState(false)
  const [offer, setOffer] = useState<Offer | undefined>()
  const [busy, setBusy] = useState(false)

  const choose = (id: string, list = configurations) => {
    const configuration = list.find((c) => c.id === id)
    setChosen(id)
    setIssuer(configuration?.issuingDid ?? '')
    setClaims(claimsTemplate(configuration))
  }

  useEffect(() => {
    props.client
      .getCredentialConfigurations({})
      .then(({ configurations: list }) => {
        const typed = list as unknown as Configuration[]
        setConfigurations(typed)
        if (typed[0] !== undefined) choose(typed[0].id, typed)
      })
      .catch(props.report)
  }, [])

  const create = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setOffer(undefined)
    try {
      let parsed: Record<string, unknown>
      try {
        parsed = JSON.parse(claims) as Record<string, unknown>
      } catch {
        throw new Error('Claims: not JSON (an object of claim names and values)')
      }
      const ops = await actingAs(props, issuer)
      const made = await ops.createCredentialOffer({ configurations: [{ id: chosen, claims: parsed }], ...(pin && { txCode: true }) })
      setOffer(made)
    } catch (err) {
      props.report(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="card" aria-labelledby="offer-heading">
      <h3 id="offer-heading">Credential offer</h3>
      {configurations.length === 0 ? (
        <p>No credential configuration: the OID4VCI issuer needs one (Create a Credential Configuration) before it can offer.</p>
      ) : (
        <form onSubmit={(event) => void create(event)}>
          <p class="field">
            <label for="offer-configuration">Configuration</label>
            <select id="offer-configuration" value={chosen} onChange={(e) => choose(e.currentTarget.value)}>
              {configurations.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.id} ({c.format})
                </option>
              ))}
            </select>
          </p>
          <WalletSelect id="offer-issuer" label="Issuing DID (acts as)" wallets={wallets} value={issuer} onChange={setIssuer} />
          <p class="field">
            <label for="offer-claims">Claims (JSON)</label>
            <textarea id="offer-claims" rows={6} value={claims} onInput={(e) => setClaims(e.currentTarget.value)} />
          </p>
          <p class="field inline">
            <input id="offer-pin" type="checkbox" checked={pin} onChange={(e) => setPin(e.currentTarget.checked)} />
            <label for="offer-pin">Ask the wallet for a PIN (tx_code)</label>
          </p>
          <button type="submit" disabled={busy || chosen === '' || issuer === ''}>
            Create offer
          </button>
        </form>
      )}
      {offer && (
        <div class="result offer" aria-live="polite">
          <SvgImage svg={offer.qr} alt="QR code of the credential offer" class="qr offer-qr" />
          <p>
            Offer URI: <code class="mono offer-uri">{offer.offerUri}</code>
          </p>
          <p>Expires {offer.expiresAt}</p>
          {offer.txCode !== undefined && (
            <p class="warning">
              PIN, shown this once (the service keeps only a keyed hash) — give it to the holder apart:{' '}
              <strong class="pin">{offer.txCode}</strong>
            </p>
          )}
        </div>
      )}
    </section>
  )
}
