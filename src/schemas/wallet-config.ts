/** The `walletConfig` object (spec: walletConfig) and its `txsInput` DID-document updates. */
import { z } from 'zod'
import { did, durationMs, ethAddress, nonEmpty } from './common.js'

const service = z.strictObject({
  // The registry attribute is `did/svc/<name>`: a bytes32 (≤ 32 bytes), and a word the did:ethr method reads.
  name: z.string().regex(/^\w{1,24}$/, 'must be 1 to 24 letters, digits or _ (the attribute did/svc/<name> is a bytes32)'),
  value: z.url({ protocol: /^https?$/ }).max(2_000),
  validity: durationMs,
})

const delegate = z.strictObject({
  address: ethAddress.optional(),
  validity: durationMs,
})

export const txInput = z
  .strictObject({ service: service.optional(), delegate: delegate.optional(), newOwner: did.optional() })
  .refine((t) => [t.service, t.delegate, t.newOwner].filter((v) => v !== undefined).length === 1, {
    message: 'each txsInput element holds exactly one of service, delegate, newOwner',
  })

export const walletConfig = z.strictObject({
  didMethod: nonEmpty(50).optional(),
  apiUrl: z.string().trim().min(1).max(2_000).optional(),
  // An object is accepted as a one-element array (some spec tables type it as an object).
  txsInput: z
    .union([z.array(txInput).max(100), txInput])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
})

export type TxInput = z.infer<typeof txInput>
export type WalletConfig = z.infer<typeof walletConfig>
