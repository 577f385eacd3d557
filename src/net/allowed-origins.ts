/**
 * Origins the operator allows the service to read outside documents from (status lists, did:web
 * documents): exact origins, https — or http on a loopback host, for tests and local setups.
 * A caller's input names the URL; only the operator names the origins.
 */

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost']

/**
 * `origins` checked: each an origin (`scheme://host[:port]`, nothing more), https — or http on a
 * loopback host (127.0.0.1, ::1, localhost).
 *
 * @param setting - the setting named in the error (`statusListOrigins`, `didWebOrigins`)
 * @throws {TypeError} naming the setting and the first origin that is not
 */
export function checkedOrigins(origins: readonly string[], setting = 'statusListOrigins'): string[] {
  return origins.map((origin) => {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {
      url = undefined
    }
    const loopback = url !== undefined && LOOPBACK_HOSTS.includes(url.hostname)
    if (
      url === undefined ||
      url.origin !== origin.replace(/\/$/, '') ||
      !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))
    )
      throw new TypeError(
        `${setting}: ${JSON.stringify(origin.slice(0, 200))} must be an origin, https://host[:port] (http only on a loopback host)`,
      )
    return url.origin
  })
}

/** An exact-origin allow-list, named by its setting. */
export class AllowedOrigins {
  readonly #origins: ReadonlySet<string>

  /**
   * @param setting - the setting the origins come from, named when a URL is refused
   * @throws {TypeError} an origin that {@link checkedOrigins} refuses
   */
  constructor(
    readonly setting: string,
    origins: readonly string[],
  ) {
    this.#origins = new Set(checkedOrigins(origins, setting))
  }

  /** Whether `url`'s origin is one of the list (exactly: scheme, host and port). */
  allows(url: URL): boolean {
    return this.#origins.has(url.origin)
  }
}
