/**
 * Admission in front of the JSON-LD worker pool: no more jobs than slots, no more than
 * `perKey` of one tenant, and tenants served in turn, so one tenant's backlog never stands in
 * front of another's job.
 */
import { describe, expect, it } from 'vitest'
import { FairScheduler } from '../../src/proofs/jsonld/fair-scheduler.js'

/** A job that runs until released, recording when it started. */
function gate(log: string[], name: string) {
  let release!: () => void
  const done = new Promise<void>((resolve) => (release = resolve))
  return {
    job: async () => {
      log.push(name)
      await done
      return name
    },
    release: () => release(),
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('FairScheduler', () => {
  it('runs at most perKey jobs of one key while slots stay free for other keys, and serves keys in turn', async () => {
    const scheduler = new FairScheduler(2, 1)
    const started: string[] = []
    const a = [gate(started, 'a1'), gate(started, 'a2'), gate(started, 'a3')]
    const b = [gate(started, 'b1'), gate(started, 'b2')]
    const results = [...a.map((g) => scheduler.run('a', g.job)), ...b.map((g) => scheduler.run('b', g.job))]
    await settle()
    expect(started).toEqual(['a1', 'b1'])
    expect(scheduler.stats()).toEqual({ running: 2, waiting: 3, peakRunningPerKey: 1 })
    a[0].release()
    await settle()
    // The freed slot goes to a's next job (b is at its cap), and never to more than one of a's.
    expect(started).toEqual(['a1', 'b1', 'a2'])
    // Both free a slot: b's turn comes before a's next job, which then gets the other.
    b[0].release()
    a[1].release()
    await settle()
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3'])
    a[2].release()
    b[1].release()
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2'])
    expect(scheduler.stats()).toEqual({ running: 0, waiting: 0, peakRunningPerKey: 1 })
  })

  it('keys take turns: a key that arrives behind another’s backlog gets the next turn, not the backlog’s end', async () => {
    const scheduler = new FairScheduler(2, 2)
    const started: string[] = []
    const a = Array.from({ length: 4 }, (_, i) => gate(started, `a${i + 1}`))
    const runs = a.map((g) => scheduler.run('a', g.job))
    await settle()
    expect(started).toEqual(['a1', 'a2'])
    const c = gate(started, 'c1')
    const cRun = scheduler.run('c', c.job)
    a[0].release()
    await settle()
    // a was waiting before c arrived, so a3 goes first; then it is c's turn: c1 starts before a4.
    expect(started).toEqual(['a1', 'a2', 'a3'])
    a[1].release()
    await settle()
    expect(started).toEqual(['a1', 'a2', 'a3', 'c1'])
    for (const g of [...a, c]) g.release()
    await Promise.all([...runs, cRun])
  })

  it('a failing job frees its slot and rejects its own caller only', async () => {
    const scheduler = new FairScheduler(1, 1)
    const failing = scheduler.run('a', async () => {
      throw new Error('boom')
    })
    const next = scheduler.run('b', async () => 'ok')
    await expect(failing).rejects.toThrow('boom')
    await expect(next).resolves.toBe('ok')
    expect(scheduler.stats()).toMatchObject({ running: 0, waiting: 0 })
  })
})
