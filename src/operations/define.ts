/**
 * How an operation is implemented: its contract (`contracts.ts`) paired with a handler, and
 * optionally a refinement of the parsed input by checks that need the service's own code or
 * state (DID checksums, the registered JSON-LD contexts), which the browser-safe contract
 * cannot hold.
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import type { OperationContext } from './context.js'
import type { OperationContract, OperationOutput, ParsedInput } from './contract.js'

/** Carries out an operation for an authenticated caller, on its parsed (and refined) input. */
export type OperationHandler<C> = (ctx: OperationContext, caller: Caller, input: ParsedInput<C>) => Promise<OperationOutput<C>>

export interface OperationImplementation<C> {
  /**
   * Runs on the parsed input before the handler: checks and normalizations the contract leaves
   * to the service. Its failures are 422s naming the fields, like the contract's.
   */
  refine?: z.ZodType<ParsedInput<C>, ParsedInput<C>>
  handler: OperationHandler<C>
}

/** Any operation's contract. */
type AnyContract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

/** A contract with its implementation: an entry of the operation table. */
export type OperationDefinition<C extends AnyContract = AnyContract> = C & OperationImplementation<C>

/** Pairs a contract with its implementation. */
export function defineOperation<C extends AnyContract>(contract: C, implementation: OperationImplementation<C>): OperationDefinition<C> {
  return { ...contract, ...implementation }
}
