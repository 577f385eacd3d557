import { describe, expect, it, vi } from 'vitest'
import { whileWriting } from '../../src/storage/while-writing.js'

/** A write settled by hand, telling whether it was settled. */
function pendingWrite<T>() {
  let resolve!: (value: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('whileWriting', () => {
  it('does the work after a turn of the event loop, before the write is confirmed, and answers the write', async () => {
    const write = pendingWrite<string>()
    const order: string[] = []
    process.nextTick(() => order.push('tick'))
    const done = whileWriting(write.promise, () => {
      order.push('work')
      setImmediate(() => write.resolve('written'))
    })
    await expect(done).resolves.toBe('written')
    // The work ran once the write's tick had passed (a pg pool sends on a later tick than the call).
    expect(order).toEqual(['tick', 'work'])
  })

  it('fails with the write when the write fails, even while the work was still to run (no unhandled rejection)', async () => {
    const unhandled = vi.fn()
    process.on('unhandledRejection', unhandled)
    try {
      const work = vi.fn()
      const failed = Promise.reject(new Error('unique constraint'))
      await expect(whileWriting(failed, work)).rejects.toThrow('unique constraint')
      expect(work).toHaveBeenCalledTimes(1)
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).not.toHaveBeenCalled()
    } finally {
      process.off('unhandledRejection', unhandled)
    }
  })

  it('awaits the write before throwing what the work threw', async () => {
    const write = pendingWrite<void>()
    let settled = false
    const done = whileWriting(
      write.promise.then(() => {
        settled = true
      }),
      async () => {
        setImmediate(() => write.resolve())
        throw new Error('sealing failed')
      },
    )
    await expect(done).rejects.toThrow('sealing failed')
    expect(settled).toBe(true)
  })

  it("a failed write's error wins over the work's", async () => {
    await expect(
      whileWriting(Promise.reject(new Error('connection lost')), () => {
        throw new Error('sealing failed')
      }),
    ).rejects.toThrow('connection lost')
  })
})
