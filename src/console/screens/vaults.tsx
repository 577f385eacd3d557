/**
 * Vaults & wallets: the tenant's vaults and wallets (cursor pages, filtered by name or DID), a vault created (a BIP44
 * vault's mnemonic shown once in a dialog, gone from the DOM when it closes), a wallet's details: key type, custody,
 * its DID's QR code and resolved DID document, stepping through the document's versions (`did-versions.tsx`).
 */
import { useCallback, useEffect, useState } from 'preact/hooks'
import type { DidvaultClient, VaultView, WalletView } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'
import { CopyButton } from '../ui/copy-button.js'
import { DidVersions } from './did-versions.js'
import { Dialog } from '../ui/dialog.js'
import { Qr } from '../ui/qr.js'
import { Table } from '../ui/table.js'

/** One page of a list: its items and the cursor of the next page (none: the last). */
interface Page<T> {
  items: T[]
  nextCursor?: string | null
}

/** A page of the tenant's vaults. */
const vaultPage = (client: DidvaultClient, cursor?: string): Promise<Page<VaultView>> =>
  client.getVaults({ limit: 50, ...(cursor && { cursor }) }).then((page) => ({ items: page.vaults, nextCursor: page.nextCursor }))

/** A page of the tenant's wallets. */
const walletPage = (client: DidvaultClient, cursor?: string): Promise<Page<WalletView>> =>
  client.getWallets({ limit: 50, ...(cursor && { cursor }) }).then((page) => ({ items: page.wallets, nextCursor: page.nextCursor }))

/**
 * A cursor-paged list: the items loaded so far, the next page's cursor, and `load(cursor?)`, which appends the page at
 * `cursor` or, without one, loads the first page again in place of all. A failed load is reported.
 */
function useCursorPages<T>(
  client: DidvaultClient,
  report: ScreenProps['report'],
  fetchPage: (client: DidvaultClient, cursor?: string) => Promise<Page<T>>,
): [T[], string | undefined, (cursor?: string) => Promise<void>] {
  const [items, setItems] = useState<T[]>([])
  const [next, setNext] = useState<string>()
  const load = useCallback(
    (cursor?: string) =>
      fetchPage(client, cursor).then((page) => {
        setItems((kept) => (cursor ? [...kept, ...page.items] : page.items))
        setNext(page.nextCursor ?? undefined)
      }, report),
    [client, report, fetchPage],
  )
  return [items, next, load]
}

/** Whether a filter's `needle` (lowercase) is empty or found in one of `fields`. */
const matches = (needle: string, ...fields: string[]): boolean => !needle || fields.some((field) => field.includes(needle))

/** The vaults and wallets screen. */
export function VaultsScreen({ client, report }: ScreenProps) {
  const [vaults, vaultCursor, loadVaults] = useCursorPages(client, report, vaultPage)
  const [wallets, walletCursor, loadWallets] = useCursorPages(client, report, walletPage)
  const [filter, setFilter] = useState('')
  const [selected, setSelected] = useState<WalletView>()
  const [mnemonic, setMnemonic] = useState<string>()

  useEffect(() => {
    void loadVaults()
    void loadWallets()
  }, [loadVaults, loadWallets])

  const create = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    try {
      const { vault } = await client.createVault({
        name: data.get('name') as string,
        hierarchy: data.get('hierarchy') as 'NONE' | 'BIP44',
        keyManagement: data.get('keyManagement') as 'ECS' | 'MPC' | 'HSM',
      })
      form.reset()
      if (vault.mnemonic) setMnemonic(vault.mnemonic)
      await Promise.all([loadVaults(), loadWallets()])
    } catch (e) {
      report(e)
    }
  }

  const needle = filter.trim().toLowerCase()
  const shownVaults = vaults.filter((v) => matches(needle, v.name.toLowerCase(), v.id))
  const shownWallets = wallets.filter((w) => matches(needle, w.did.toLowerCase(), w.alias.toLowerCase()))
  const custodyOf = (w: WalletView) => w.keyManagement ?? vaults.find((v) => v.id === w.vaultId)?.keyManagement ?? 'ECS'

  return (
    <>
      <section aria-labelledby="create-vault">
        <h2 id="create-vault">Create a vault</h2>
        <form class="toolbar" onSubmit={(e) => void create(e)}>
          <span class="field">
            <label for="vault-name">Name</label>
            <input id="vault-name" name="name" required maxLength={200} />
          </span>
          <span class="field">
            <label for="vault-hierarchy">Hierarchy</label>
            <select id="vault-hierarchy" name="hierarchy">
              <option value="NONE">NONE (independent keys)</option>
              <option value="BIP44">BIP44 (one mnemonic)</option>
            </select>
          </span>
          <span class="field">
            <label for="vault-custody">Custody</label>
            <select id="vault-custody" name="keyManagement">
              <option value="ECS">ECS (sealed under the master key)</option>
              <option value="MPC">MPC</option>
              <option value="HSM">HSM</option>
            </select>
          </span>
          <button type="submit" class="primary">
            Create vault
          </button>
        </form>
      </section>
      {mnemonic !== undefined && (
        <Dialog title="The vault's mnemonic" onClose={() => setMnemonic(undefined)}>
          <p class="warning">Shown once, never again: write it down and keep it offline. Whoever has it holds every key of this vault.</p>
          <p class="mnemonic" data-mnemonic>
            {mnemonic}
          </p>
          <CopyButton text={mnemonic} label="Copy mnemonic" />
        </Dialog>
      )}
      <div class="toolbar">
        <label for="vault-filter">Filter</label>
        <input id="vault-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </div>
      <Table
        caption="Vaults"
        rows={shownVaults}
        rowKey={(v) => v.id}
        empty="No vaults."
        columns={[
          { title: 'Name', cell: (v) => v.name },
          { title: 'Id', cell: (v) => <code>{v.id}</code> },
          { title: 'Hierarchy', cell: (v) => v.hierarchy },
          { title: 'Custody', cell: (v) => v.keyManagement },
          { title: 'Status', cell: (v) => v.status },
        ]}
      />
      {vaultCursor && (
        <button type="button" onClick={() => void loadVaults(vaultCursor)}>
          More vaults
        </button>
      )}
      <Table
        caption="Wallets"
        rows={shownWallets}
        rowKey={(w) => w._id}
        empty="No wallets."
        columns={[
          {
            title: 'DID',
            cell: (w) => (
              <button type="button" class="link" onClick={() => setSelected(w)} aria-label={`Details of ${w.did}`}>
                {w.did}
              </button>
            ),
          },
          { title: 'Alias', cell: (w) => w.alias },
          { title: 'Key type', cell: keyTypeOf },
          { title: 'Custody', cell: custodyOf },
          { title: 'Vault', cell: (w) => vaults.find((v) => v.id === w.vaultId)?.name ?? w.vaultId ?? '—' },
        ]}
      />
      {walletCursor && (
        <button type="button" onClick={() => void loadWallets(walletCursor)}>
          More wallets
        </button>
      )}
      {selected && <WalletDetails key={selected._id} client={client} report={report} wallet={selected} custody={custodyOf(selected)} />}
    </>
  )
}

/** The key type of a wallet: its public JWK's curve (or type). */
const keyTypeOf = (w: WalletView) => {
  const jwk = w.publicKeyJwk as { kty?: string; crv?: string } | undefined
  return jwk?.crv ?? jwk?.kty ?? (w.publicKeyHex ? 'secp256k1' : '—')
}

interface WalletDetailsProps extends Omit<ScreenProps, 'asDid'> {
  wallet: WalletView
  custody: string
}

/** A wallet's details: DID, key type, custody, QR code of the DID and its resolved DID document with its versions. */
function WalletDetails({ client, report, wallet, custody }: WalletDetailsProps) {
  return (
    <section aria-labelledby="wallet-details" class="details">
      <h2 id="wallet-details">Wallet {wallet.alias || wallet._id}</h2>
      <dl>
        <dt>DID</dt>
        <dd>
          <code>{wallet.did}</code>
        </dd>
        <dt>Key type</dt>
        <dd data-key-type>{keyTypeOf(wallet)}</dd>
        <dt>Custody</dt>
        <dd data-custody>{custody}</dd>
        <dt>Created</dt>
        <dd>{wallet.created}</dd>
      </dl>
      <Qr text={wallet.did} label={`QR code of ${wallet.did}`} />
      <DidVersions key={wallet.did} client={client} report={report} did={wallet.did} />
    </section>
  )
}
