/**
 * Admission in front of the worker pool: at most `slots` jobs run at once (one per worker, so
 * a job handed over starts at once and its deadline measures its own work), at most
 * `perKey` of them for one key (a tenant); waiting jobs queue per key, and the keys take
 * turns, so one tenant's backlog never stands in front of another tenant's job.
 */

/** What the scheduler is doing. */
export interface SchedulerStats {
  /** Jobs running now. */
  running: number
  /** Jobs waiting for a slot. */
  waiting: number
  /** The most jobs of one key that ever ran at once (never above `perKey`). */
  peakRunningPerKey: number
}

interface KeyState {
  running: number
  waiting: Array<() => void>
}

export class FairScheduler {
  readonly #slots: number
  readonly #perKey: number
  #running = 0
  #peakPerKey = 0
  readonly #keys = new Map<string, KeyState>()
  /** Keys with waiting jobs, in the order they are served. */
  readonly #turns: string[] = []

  constructor(slots: number, perKey: number) {
    this.#slots = slots
    this.#perKey = perKey
  }

  /** Runs `job` once a slot is free and `key` is under its cap; settles as the job does. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const state = this.#keys.get(key) ?? { running: 0, waiting: [] }
      this.#keys.set(key, state)
      state.waiting.push(() => {
        job()
          .then(resolve, reject)
          .finally(() => {
            this.#running--
            state.running--
            if (state.running === 0 && state.waiting.length === 0) this.#keys.delete(key)
            this.#pump()
          })
      })
      if (state.waiting.length === 1) this.#turns.push(key)
      this.#pump()
    })
  }

  stats(): SchedulerStats {
    let waiting = 0
    for (const state of this.#keys.values()) waiting += state.waiting.length
    return { running: this.#running, waiting, peakRunningPerKey: this.#peakPerKey }
  }

  /** Starts waiting jobs while slots are free: the first key in turn that is under its cap, then it goes to the back. */
  #pump(): void {
    while (this.#running < this.#slots) {
      const turn = this.#turns.findIndex((key) => this.#keys.get(key)!.running < this.#perKey)
      if (turn < 0) return
      const [key] = this.#turns.splice(turn, 1)
      const state = this.#keys.get(key)!
      const start = state.waiting.shift()!
      if (state.waiting.length > 0) this.#turns.push(key)
      this.#running++
      state.running++
      this.#peakPerKey = Math.max(this.#peakPerKey, state.running)
      start()
    }
  }
}
