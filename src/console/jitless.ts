/**
 * Zod without its JIT: zod compiles object parsers with `new Function` when the page allows it, and merely trying is a
 * `securitypolicyviolation` under the console's CSP (no `eval`). Imported first by main.tsx, so this runs when the
 * bundle starts, before any module parses anything (some parse while they load).
 */
import { config } from 'zod'

/** zod's global configuration, with the JIT off. */
export const ZOD_CONFIG = config({ jitless: true })
