/** What every operation may be given besides its domain's parts: the clock and the operator's sinks for failures. */

export interface Runtime {
  /** Current time, ms. */
  now(): number
  /**
   * Receives unexpected (500) failures, for the operator's logs; responses never carry their details.
   * `operation` is the operation's name in the table (`createVault`), or a background task's (`Publish status list`, `JSON-LD worker`).
   */
  onError(operation: string, error: unknown, info?: ErrorInfo): void
  /** Told of each item of a 200 answer that failed (its error is in the answer's `errors`), for the operator's metrics. */
  onItemFailure(failure: ItemFailure): void
}

/** What an error sink is told besides the operation and the error. */
export interface ErrorInfo {
  /** The request's id, when the caller gave or got one. */
  requestId?: string
  /**
   * A part of the operation that failed while its answer was a 200: what was done to a batch item
   * (`rename wallet`), a `walletConfig` transaction (`apply walletConfig`), the MPC provider's cleanup.
   */
  item?: string
}

/** One failed item of a 200 answer: a batch item, a `walletConfig` transaction, a status-change item. */
export interface ItemFailure {
  /** The operation's name in the table (`renameWallets`). */
  operation: string
  /** What was done to the item (`rename wallet`). */
  item: string
  /** Its error body's `errorType` and `statusCode`. */
  errorType: string
  statusCode: number
  requestId?: string
}
