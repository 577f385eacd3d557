/**
 * `GET /console/…` of `didvault serve --console`: the web console's static files (`dist/console/`, built with the
 * package), each answered with a strict Content-Security-Policy — scripts, styles and connections of this origin only,
 * images of this origin or `data:`, no inline script or style, no `eval`, no framing, no form posts — and no-cache.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Router, type Request, type Response } from 'express'

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'main.js': 'text/javascript; charset=utf-8',
  'main.css': 'text/css; charset=utf-8',
}

/**
 * Where the built console is: `dist/console/` beside the CLI's bundle (`dist/cli/main.js`) or its chunks (`dist/`).
 * Undefined when the package was built without it.
 */
export function consoleDir(from: string = import.meta.url): string | undefined {
  return ['../console/', './console/']
    .map((relative) => fileURLToPath(new URL(relative, from)))
    .find((dir) => existsSync(`${dir}index.html`))
}

/** The router serving the console's files from `dir` (read once, at start) under `/console`. */
export function consoleRouter(dir: string): Router {
  const files = new Map(Object.entries(TYPES).map(([name, type]) => [name, { type, body: readFileSync(`${dir}${name}`) }]))
  const send = (name: string) => (_req: Request, res: Response) => {
    const file = files.get(name)!
    res.set({
      'content-type': file.type,
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': 'no-cache',
    })
    res.send(file.body)
  }
  // Strict: `/console` (redirected) is not `/console/` (the page, whose relative URLs need the slash).
  const router = Router({ strict: true })
  router.get('/console', (_req, res) => res.redirect(301, '/console/'))
  router.get('/console/', send('index.html'))
  for (const name of Object.keys(TYPES)) router.get(`/console/${name}`, send(name))
  return router
}
