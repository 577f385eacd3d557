/**
 * Issue 28 finding 1 against the served process (`didvault serve`, a real child process, real HTTP
 * on loopback): while one tenant sends the probe's body (U+0000 25,000 arrays deep, 49 KiB) and the
 * worst 1 MiB bodies `limits.depth` admits, two at a time, another tenant's requests and
 * `/health/live` are answered promptly. Before the fix one such body held the event loop 3–5 s.
 * "Promptly" is a bound meant never to flake: the served process's own event-loop delay
 * (`nodejs_eventloop_lag_max_seconds`, measured by `monitorEventLoopDelay`, reset by each scrape)
 * stays under a second, and no concurrent cheap request waits two — where one such body took
 * seconds on main, and the worst of them takes tens of milliseconds now.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { DEEP_NUL_BODY, TOO_DEEP, expectedWalletRefusal, worstAdmittedBodies } from '../helpers/hostile-bodies.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'

const SENDER = 'key-sender-0123456789'
const OTHER = 'key-other-0123456789'
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/

let dir: string
beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-bodies-'))
}, 180_000)
afterAll(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

/** The served process's largest event-loop delay since the last scrape, in seconds. */
async function eventLoopDelayMax(url: string): Promise<number> {
  const scrape = await http(`${url}/metrics`)
  const line = (scrape.body as string).split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'))
  if (line === undefined) throw new Error('no nodejs_eventloop_lag_max_seconds in /metrics')
  return Number(line.split(' ').pop())
}

it("one tenant's hostile bodies: every one refused with its exact error, nothing written; another tenant and /health/live answered promptly", async () => {
  const proc = spawnNode([CLI, 'serve', '--storage', 'memory', '--port', '0', '--log-level', 'warn'], {
    cwd: dir,
    env: { DIDVAULT_API_KEYS: `sender:${SENDER},other:${OTHER}` },
  })
  const [, url] = await proc.waitFor(LISTENING, 60_000)
  expect((await http(`${url}/wallet`, { method: 'POST', token: OTHER, json: {} })).status).toBe(200)

  const worst = worstAdmittedBodies(1024 * 1024, 64).map(({ text }) => ({ text, expected: expectedWalletRefusal(JSON.parse(text), 64) }))
  const bodies = [{ text: DEEP_NUL_BODY, expected: TOO_DEEP(64) }, ...worst, { text: DEEP_NUL_BODY, expected: TOO_DEEP(64) }]
  await eventLoopDelayMax(url)

  // Two senders, each through every body, both starting with the probe's; meanwhile the other tenant and a load balancer poll.
  let sending = true
  const answers: Array<{ status: number; body: unknown; expected: string }> = []
  const senders = [0, bodies.length - 1].map(async (offset) => {
    for (let i = 0; i < bodies.length; i++) {
      const { text, expected } = bodies[(i + offset) % bodies.length]
      const res = await http(`${url}/wallet`, { method: 'POST', token: SENDER, body: text })
      answers.push({ status: res.status, body: res.body, expected })
    }
  })
  const waits: number[] = []
  const poller = (async () => {
    while (sending) {
      for (const [path, token] of [
        ['/wallets', OTHER],
        ['/health/live', undefined],
      ] as const) {
        const started = performance.now()
        const res = await http(`${url}${path}`, token === undefined ? {} : { token })
        waits.push(performance.now() - started)
        expect(res.status).toBe(200)
      }
      await sleep(25)
    }
  })()
  await Promise.all(senders)
  sending = false
  await poller

  const lag = await eventLoopDelayMax(url)
  expect(waits.length).toBeGreaterThan(0)
  expect(Math.max(...waits)).toBeLessThan(2_000)
  expect(lag).toBeLessThan(1)
  expect(answers).toHaveLength(2 * bodies.length)
  for (const answer of answers)
    expect(answer.body).toEqual({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: answer.expected })
  // Nothing written for the sender's tenant.
  expect((await http(`${url}/wallets`, { token: SENDER })).body.wallets).toEqual([])
}, 60_000)
