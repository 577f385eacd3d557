/**
 * Work done while a write travels to the storage rather than after it: for an answer that must wait for the write yet
 * does not depend on its outcome (sealing an access token, making a credential response), so that the work overlaps
 * the statement's round trip instead of following it.
 */

/**
 * Awaits `write` with `work` done meanwhile, after one turn of the event loop (an adapter may send its statement on a
 * later tick than the call: pg's pool does). The write decides: a failed write fails the whole, whatever the work did,
 * and the write is awaited even when the work throws (then the work's error is thrown, once the write is settled).
 */
export async function whileWriting<T>(write: Promise<T>, work: () => void | Promise<void>): Promise<T> {
  // Handled from the start: a write failing during the turn below is no unhandled rejection.
  write.catch(() => undefined)
  await new Promise<void>((resolve) => setImmediate(resolve))
  let failure: { err: unknown } | undefined
  try {
    await work()
  } catch (err) {
    failure = { err }
  }
  const written = await write
  if (failure) throw failure.err
  return written
}
