/**
 * The service's Prometheus metrics (prom-client), in a registry of their own. Label values are
 * drawn from closed sets only — operation names, HTTP statuses, storage call kinds — never a
 * tenant id, a DID or anything else a caller chooses.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { ItemFailure } from '../operations/runtime.js'

/** Latency buckets, seconds: 1 ms … 10 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Storage calls are quicker: 0.1 ms … 1 s. */
const STORAGE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

/** The label of a request that ran no operation (an unknown route, the OpenAPI document). */
export const NO_OPERATION = 'none'

export class ServiceMetrics {
  readonly registry: Registry
  readonly #requests: Counter<'operation' | 'status'>
  readonly #latency: Histogram<'operation'>
  readonly #storage: Histogram<'call'>
  readonly #publishes: Counter
  readonly #itemFailures: Counter<'operation' | 'errorType' | 'status'>
  readonly #retries: Counter

  /**
   * @param jsonldWaiting - how many JSON-LD tasks wait for a worker now (read at each scrape)
   * @param defaults - also collect prom-client's process metrics (CPU, memory, event loop, GC)
   */
  constructor(jsonldWaiting: () => number, { defaults = true }: { defaults?: boolean } = {}) {
    const registers = [(this.registry = new Registry())]
    if (defaults) collectDefaultMetrics({ register: this.registry })
    this.#requests = new Counter({
      name: 'didvault_http_requests_total',
      help: 'HTTP requests answered, by operation and status',
      labelNames: ['operation', 'status'],
      registers,
    })
    this.#latency = new Histogram({
      name: 'didvault_http_request_duration_seconds',
      help: 'Time from a request to the end of its response, by operation',
      labelNames: ['operation'],
      buckets: REQUEST_BUCKETS,
      registers,
    })
    this.#storage = new Histogram({
      name: 'didvault_storage_operation_duration_seconds',
      help: 'Time of each storage call, by kind (get, find, insert, update, transaction, ...)',
      labelNames: ['call'],
      buckets: STORAGE_BUCKETS,
      registers,
    })
    new Gauge({
      name: 'didvault_jsonld_queue_length',
      help: 'JSON-LD canonicalization tasks waiting for a worker thread',
      registers,
      collect() {
        this.set(jsonldWaiting())
      },
    })
    this.#publishes = new Counter({
      name: 'didvault_status_list_publishes_total',
      help: 'Status lists signed and published',
      registers,
    })
    this.#itemFailures = new Counter({
      name: 'didvault_batch_item_failures_total',
      help: 'Items of 200 answers that failed (their errors), by operation, error type and status',
      labelNames: ['operation', 'errorType', 'status'],
      registers,
    })
    this.#retries = new Counter({
      name: 'didvault_storage_transaction_retries_total',
      help: 'Transactions run again after a serialization failure or deadlock (PostgreSQL)',
      registers,
    })
  }

  /** One request answered: `operation` (or {@link NO_OPERATION}), its status, its duration in seconds. */
  request(operation: string, status: number, seconds: number): void {
    this.#requests.inc({ operation, status: String(status) })
    this.#latency.observe({ operation }, seconds)
  }

  /** One storage call of kind `call`, `seconds` long. */
  storageCall(call: string, seconds: number): void {
    this.#storage.observe({ call }, seconds)
  }

  /** One failed item of a 200 answer (`IdentityServiceOptions.onItemFailure`). */
  readonly itemFailed = ({ operation, errorType, statusCode }: ItemFailure): void => {
    this.#itemFailures.inc({ operation, errorType, status: String(statusCode) })
  }

  /** One transaction run again after a serialization failure or deadlock (the PostgreSQL adapter's `onRetry`). */
  readonly storageTransactionRetried = (): void => {
    this.#retries.inc()
  }

  /** One status list published (`IdentityServiceOptions.onStatusListPublished`). */
  readonly statusListPublished = (): void => {
    this.#publishes.inc()
  }
}
