/**
 * didvault embedded in a Node program: no HTTP, just the service on a SQLite file.
 * Run: node --import tsx examples/embedded.ts
 *
 * In your project the imports are `from 'didvault'` and `from 'didvault/sqlite'`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'

// Your app's own credential for the service; every record it creates belongs to tenant "my-app".
const API_KEY = 'example-api-key-0123456789'

const dir = mkdtempSync(join(tmpdir(), 'didvault-example-'))
const service = await IdentityService.create({
  storage: createSqliteStorage({ path: join(dir, 'identity.db') }),
  // Keep a real master key in a secret store: without it the stored keys cannot be decrypted.
  masterKey: randomMasterKey(),
  tenants: staticTenants({ [API_KEY]: 'my-app' }),
})

try {
  const app = service.as({ authorization: `Bearer ${API_KEY}` })

  const { vault } = await app.createVault({ name: 'Example vault', hierarchy: 'BIP44' })
  const first = vault.wallets[0]
  console.log(`vault created: ${vault.id} (${vault.keyManagement}, ${vault.hierarchy})`)
  // The mnemonic is in this response only; it is never returned again. Hand it to the user, do not log it.
  console.log(`mnemonic returned once: ${vault.mnemonic ? 'yes' : 'no'}`)
  console.log(`first wallet: index ${first.index} ${first.did}`)

  // Proving control of a wallet of the vault lets this caller derive the vault's next wallet.
  const { jwt } = await app.generateToken({ iss: first.did })
  const asOwner = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: jwt })
  const { wallet: second } = await asOwner.createVaultWallet({ vaultID: vault.id, wallet: { alias: 'savings' } })
  console.log(`derived wallet: index ${second.index} ${second.did}`)

  const renamed = await asOwner.renameWallets({ wallets: [{ did: first.did, alias: 'main' }] })
  console.log(`renamed: ${renamed.wallets.map((w) => w.alias).join(', ')} (errors: ${renamed.errors.length})`)

  const { wallets } = await app.getWallets({ vaultId: vault.id })
  console.log(`wallets in vault: ${wallets.length}`)
  for (const w of wallets) console.log(`  #${w.index} ${w.alias.padEnd(8)} ${w.ethereumAddress}`)
  console.log('done')
} finally {
  await service.close()
  rmSync(dir, { recursive: true, force: true })
}
