/**
 * Loading what needs an optional peer of the package (a storage driver, express): when the peer is
 * not installed, the error names the package to install instead of Node's bare "Cannot find package".
 */

/** Whether `err` is Node's "cannot find" error for the package `name` (ESM or CommonJS resolution). */
function isMissingPackage(err: unknown, name: string): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  return new RegExp(`['"]${name}['"/]`).test((err as Error).message)
}

/**
 * Resolves to `load()`; when that fails for want of the optional package `name` (or of one of the packages `name`
 * lists, which go together), rejects saying that `what` needs it (them all) and how to install it.
 */
export async function withOptionalPeer<M>(name: string | readonly string[], what: string, load: () => Promise<M>): Promise<M> {
  const names = typeof name === 'string' ? [name] : name
  try {
    return await load()
  } catch (err) {
    if (!names.some((one) => isMissingPackage(err, one))) throw err
    if (names.length === 1)
      throw new Error(`${what} needs the optional package ${names[0]}, which is not installed: npm install ${names[0]}`)
    throw new Error(`${what} needs the optional packages ${names.join(', ')}, not all installed: npm install ${names.join(' ')}`)
  }
}
