/**
 * Import first (before the client or any schema), and use `ZOD_CONFIG` (the package declares no side effects, so a
 * bare import is dropped by the bundler): zod compiles parsers with `new Function` unless told not to, probing for it
 * as each object schema is built — a `script-src` violation under the console's CSP (no 'unsafe-eval').
 */
import { config } from 'zod'

export const ZOD_CONFIG = config({ jitless: true })
