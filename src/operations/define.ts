/**
 * How an operation is implemented: its contract paired with a handler, and optionally a
 * refinement of the parsed input by checks that need the service's own code or state (DID
 * checksums, the registered JSON-LD contexts), which the browser-safe contract cannot hold.
 * A handler declares the parts of the service it uses as its context type (`X`): the table
 * passes the whole service context, of which each handler sees only what it names.
 */
import type { z } from 'zod'
import type { AuthContext, Caller } from '../auth/context.js'
import type { OperationContract, OperationOutput, ParsedInput } from './contract.js'

/**
 * Carries out an operation for an authenticated caller, on its parsed (and refined) input, with the parts `X` of the service.
 * `auth` is the request's headers as the router (or the embedder) gave them: for protocol endpoints that read them
 * after the body (an OID4VCI token request's DPoP proof, method and public URL); access decisions are the caller's.
 */
export type OperationHandler<C, X> = (ctx: X, caller: Caller, input: ParsedInput<C>, auth: AuthContext) => Promise<OperationOutput<C>>

export interface OperationImplementation<C, X> {
  /**
   * Runs on the parsed input before the handler: checks and normalizations the contract leaves
   * to the service. Its failures are 422s naming the fields, like the contract's.
   */
  refine?: z.ZodType<ParsedInput<C>, ParsedInput<C>>
  handler: OperationHandler<C, X>
  /**
   * Whose name the operation signs in with a wallet's key, when it may sign: `caller` — for the
   * request's caller, so its contract declares an `audit` action (its acts record each signature,
   * the dispatcher each refusal) —, or `publisher` — the service's own status-list signatures, recorded
   * with actor `{ system: "publisher" }` once per list version. `test/audit/declared.test.ts`
   * holds every operation to it: one that signs without saying so fails there.
   */
  signs?: 'caller' | 'publisher'
}

/** Any operation's contract. */
type AnyContract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

/** A contract with its implementation: an entry of the operation table. */
export type OperationDefinition<C extends AnyContract, X> = C & OperationImplementation<C, X>

/** Pairs a contract with its implementation. */
export function defineOperation<C extends AnyContract, X>(
  contract: C,
  implementation: OperationImplementation<C, X>,
): OperationDefinition<C, X> {
  return { ...contract, ...implementation }
}
