/**
 * Which block of a chain was its head at a given time: how the on-chain registry turns a
 * `versionTime` into the block number `ethr-did-resolver` resolves as `versionId`.
 */
import type { Provider } from 'ethers'

/**
 * The number of the last block stamped at or before `time` (UNIX seconds): the latest block
 * when `time` is later than it, and block 0 when `time` is before even that one (no DID can
 * have changed before the chain began). A binary search over block timestamps, so about
 * log2(height) `eth_getBlockByNumber` calls.
 */
export async function blockAtTime(provider: Provider, time: number): Promise<number> {
  const latest = await blockOf(provider, 'latest')
  if (latest.timestamp <= time) return latest.number
  if ((await blockOf(provider, 0)).timestamp > time) return 0
  // Block `low` is stamped at or before `time`, block `high` after it.
  let low = 0
  let high = latest.number
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2)
    if ((await blockOf(provider, mid)).timestamp <= time) low = mid
    else high = mid
  }
  return low
}

async function blockOf(provider: Provider, tag: number | 'latest'): Promise<{ number: number; timestamp: number }> {
  const block = await provider.getBlock(tag)
  if (!block) throw new Error(`block ${tag} is not available`)
  return block
}
