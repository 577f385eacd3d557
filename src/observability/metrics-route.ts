/**
 * `GET /metrics` in the Prometheus text format: this process's registry, or with `--workers` the
 * whole cluster's. A worker asks the primary over the cluster's IPC channel, and the primary
 * gathers every worker's registry (prom-client's `AggregatorRegistry`): a scrape landing on any
 * worker sees the requests all of them served.
 */
import cluster, { type Worker } from 'node:cluster'
import express, { type Router } from 'express'
import { AggregatorRegistry, type Registry } from 'prom-client'

/** The text of a scrape and its content type. */
export interface Scrape {
  contentType: string
  text: string
}
export type MetricsSource = () => Promise<Scrape>

/** How long a worker waits for the primary's aggregate. */
const CLUSTER_SCRAPE_TIMEOUT_MS = 5_000
const ASK = 'didvault:metrics?'
const ANSWER = 'didvault:metrics'

interface Ask {
  type: typeof ASK
  id: number
}
interface Answer {
  type: typeof ANSWER
  id: number
  text?: string
  error?: string
}

/** This process's registry. */
export const localMetrics =
  (registry: Registry): MetricsSource =>
  async () => ({ contentType: registry.contentType, text: await registry.metrics() })

/** The route serving `source` at `GET /metrics`. */
export function metricsRouter(source: MetricsSource): Router {
  const router = express.Router()
  router.get('/metrics', async (_req, res) => {
    try {
      const { contentType, text } = await source()
      // Written as is: `send` would hash the whole text for an ETag no scraper uses.
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) })
      res.end(text)
    } catch (err) {
      res
        .status(503)
        .type('text/plain')
        .send(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`)
    }
  })
  return router
}

/**
 * In a worker: answers the primary's gathering with `registry`, and returns the source of the
 * cluster-wide scrape (asked of the primary).
 */
export function workerMetrics(registry: Registry): MetricsSource {
  AggregatorRegistry.setRegistries([registry])
  new AggregatorRegistry() // its listener answers the primary's requests for this worker's metrics
  let lastId = 0
  const waiting = new Map<number, (answer: Answer) => void>()
  process.on('message', (message: Answer) => {
    if (message?.type === ANSWER) waiting.get(message.id)?.(message)
  })
  return () =>
    new Promise<Scrape>((resolve, reject) => {
      const id = ++lastId
      const timer = setTimeout(() => settle({ type: ANSWER, id, error: 'the primary did not answer' }), CLUSTER_SCRAPE_TIMEOUT_MS)
      const settle = (answer: Answer) => {
        clearTimeout(timer)
        waiting.delete(id)
        if (answer.text !== undefined) resolve({ contentType: registry.contentType, text: answer.text })
        else reject(new Error(answer.error ?? 'no metrics'))
      }
      waiting.set(id, settle)
      process.send!({ type: ASK, id } satisfies Ask)
    })
}

/**
 * In the primary: gathers every worker's registry when one of them asks, and returns the source
 * of the same aggregate (for `--metrics-port`, served by the primary itself).
 */
export function primaryMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry()
  const gather = async (): Promise<Scrape> => ({ contentType: aggregator.contentType, text: await aggregator.clusterMetrics() })
  cluster.on('message', (worker: Worker, message: Ask) => {
    if (message?.type !== ASK) return
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer } satisfies Answer)
    }
    gather().then(
      ({ text }) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    )
  })
  return gather
}
