/** `didvault/express`: the Express router over an {@link IdentityService}. */
export { createRouter, createWellKnownRouter, type RouterOptions, type WellKnownRouterOptions } from './router.js'
export type { CorsOptions } from './cors.js'
export { httpError } from './errors.js'
export { answerClientErrors } from './client-errors.js'
