/** `didvault/express`: the Express router over an {@link IdentityService}. */
export { createRouter, type RouterOptions } from './router.js'
export { httpError } from './errors.js'
export { answerClientErrors } from './client-errors.js'
