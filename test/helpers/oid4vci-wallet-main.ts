/**
 * Child-process entry of {@link runWallet} (test/helpers/oid4vci-wallets.ts): `node --import tsx oid4vci-wallet-main.ts
 * <wallet> <offerUri> <options JSON>` (or `metadata:<wallet> <credential issuer>`: the client's metadata step alone,
 * test/helpers/oid4vci-wallet-metadata.ts); prints `WALLET-RESULT <json>` and exits 0, or prints the error chain and exits 1.
 */
import { WALLETS, type WalletName } from './oid4vci-wallets.js'

const [wallet, offerUri, options] = process.argv.slice(2)
try {
  const result = wallet.startsWith('metadata:')
    ? await (await import('./oid4vci-wallet-metadata.js')).WALLET_METADATA[wallet.slice('metadata:'.length) as WalletName](offerUri)
    : await WALLETS[wallet as WalletName](offerUri, JSON.parse(options ?? '{}'))
  process.stdout.write(`WALLET-RESULT ${JSON.stringify(result)}\n`)
} catch (error) {
  let cause: unknown = error
  while (cause) {
    const e = cause as { stack?: string; data?: unknown; status?: number; errorResponse?: unknown; response?: unknown }
    process.stderr.write(
      `${e.stack ?? JSON.stringify(cause)}\n${JSON.stringify({ status: e.status, data: e.data, errorResponse: e.errorResponse })}\n`,
    )
    cause = (cause as { cause?: unknown }).cause
  }
  process.exitCode = 1
}
