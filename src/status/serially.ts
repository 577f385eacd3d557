/**
 * Runs tasks that name the same keys one after another, in this process: a task waits for the
 * tasks registered before it on any of its keys. Registration is synchronous, so tasks only ever
 * wait on earlier ones (no deadlock, whatever the keys' order).
 */
const tails = new Map<string, Promise<unknown>>()

/** Runs `task` once every earlier task on any of `keys` has settled. */
export function serially<R>(keys: readonly string[], task: () => Promise<R>): Promise<R> {
  const earlier = keys.flatMap((key) => tails.get(key) ?? [])
  const run = Promise.allSettled(earlier).then(task)
  const settled = run.then(
    () => undefined,
    () => undefined,
  )
  for (const key of keys) tails.set(key, settled)
  void settled.then(() => {
    for (const key of keys) if (tails.get(key) === settled) tails.delete(key)
  })
  return run
}
