/** Processes from outside, on Linux's `/proc`: whether one runs, its children, which one holds a connection; waiting with a bound. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** Polls `f` every `everyMs` until it returns a value other than `undefined`. */
export async function until<T>(f: () => T | undefined, what: string, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  for (const start = Date.now(); Date.now() - start < timeoutMs; await sleep(everyMs)) {
    const value = f()
    if (value !== undefined) return value
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** `promise`, or a rejection naming `what` when it has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

export const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The pids of `pid`'s children (none once it is gone). */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    )
  } catch {
    return []
  }
}

/** The pid among `pids` holding the server side of the loopback connection from `clientPort` to `serverPort`. */
export function ownerOf(serverPort: number, clientPort: number, pids: number[]): number | undefined {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const [, local, remote, , , , , , , inode] = line.trim().split(/\s+/)
      const portOf = (address: string) => parseInt(address.split(':').at(-1)!, 16)
      if (portOf(local) === serverPort && portOf(remote) === clientPort) inodes.add(`socket:[${inode}]`)
    }
  }
  return pids.find((pid) =>
    readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))
      } catch {
        return false // closed meanwhile
      }
    }),
  )
}
