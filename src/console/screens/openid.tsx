/** Issue & verify over OpenID: a credential offer (OID4VCI) and a presentation request (OID4VP), each with its QR code. */
import { useEffect, useState } from 'preact/hooks'
import type { WalletView } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'
import { OfferPanel } from './openid-offer.js'
import { RequestPanel } from './openid-request.js'
import { tenantWallets } from './wallets.js'
import './operations.css'

export function OpenIdScreen(props: ScreenProps) {
  const [wallets, setWallets] = useState<WalletView[]>([])
  useEffect(() => {
    tenantWallets(props).then(setWallets).catch(props.report)
  }, [])
  return (
    <div class="screen openid">
      <p>
        Offer a credential to a wallet, or ask a wallet for one, by QR code. Both need the service's OID4VCI / OID4VP modules and its{' '}
        <code>publicUrl</code>; without them the service says so here.
      </p>
      <OfferPanel props={props} wallets={wallets} />
      <RequestPanel props={props} wallets={wallets} />
    </div>
  )
}
