/**
 * Debian's Chromium for the browser tests (the client's, the console's): where it is, whether it is there (a test file
 * without it skips, saying how to install it), and the flags of a headless Chromium on a machine without network.
 */
import { existsSync } from 'node:fs'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const haveChromium = existsSync(CHROMIUM)

/** Says, once per test file, why `what` is skipped on a machine without Chromium. */
export function sayWhenNoChromium(what: string): void {
  if (!haveChromium)
    console.log(
      `${what} skipped: no Chromium at ${CHROMIUM}. Install Debian's (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`,
    )
}

/** Flags for a headless Chromium on a machine without network: no sandbox (root), nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
