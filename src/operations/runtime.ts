/** What every operation may be given besides its domain's parts: the clock and the operator's error sink. */

export interface Runtime {
  /** Current time, ms. */
  now(): number
  /** Receives unexpected (500) failures, for the operator's logs; responses never carry their details. */
  onError(operation: string, error: unknown, info?: ErrorInfo): void
}

/** What an error sink is told besides the operation and the error: the request's id, when the caller gave or got one. */
export interface ErrorInfo {
  requestId?: string
}
