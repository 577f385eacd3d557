/** A server the bench runs as a child process: waiting for its listening line, and the handle to stop it. */
import type { ChildProcess } from 'node:child_process'

/** A started server: its base URL, and how to stop it. */
export interface Server {
  url: string
  stop(): Promise<void>
}

/**
 * Waits for `pattern` on `child`'s stdout; rejects if it exits first. Then its output (a log line
 * per request) is drained unread: kept and searched, it would cost this process more and more.
 */
export function listening(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: string) => {
      out += chunk
      const match = pattern.exec(out)
      if (!match) return
      child.stdout!.off('data', onData)
      child.stdout!.resume()
      resolve(match)
    }
    child.stdout!.setEncoding('utf8').on('data', onData)
    child.once('exit', (code) => reject(new Error(`bench: ${what} exited (${code}) before listening:\n${out}`)))
  })
}
