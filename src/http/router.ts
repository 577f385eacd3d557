/**
 * The Express router: a pure mapping of the spec's routes onto {@link IdentityService}
 * methods. Headers become an {@link AuthContext}; bodies and queries go to the service as
 * they came; results and errors go back as JSON. No business rule lives here.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express'
import type { AuthContext } from '../auth/context.js'
import { IdentityError } from '../errors.js'
import type { IdentityService } from '../service.js'
import { httpError } from './errors.js'

export interface RouterOptions {
  /** Largest JSON body accepted (bytes or a size string like `'1mb'`). Default 1 MiB; larger bodies get 413. */
  bodyLimit?: number | string
  /** Serve `GET /1.0/identifiers/:did` (DID documents are public). Default true. */
  resolverRoute?: boolean
}

const authOf = (req: Request): AuthContext => ({
  authorization: req.get('authorization') ?? undefined,
  didAuth: req.get('x-did-auth') ?? undefined,
})

type Handler = (req: Request) => Promise<unknown>

/** Runs a handler and writes its result (200) or its error body (the error's status). */
const respond = (handler: Handler) => async (req: Request, res: Response, next: NextFunction) => {
  try {
    res.status(200).json(await handler(req))
  } catch (err) {
    next(err)
  }
}

/** Bodies must be JSON: a non-empty body of another content type is 422. */
function requireJson(req: Request, _res: Response, next: NextFunction) {
  const length = Number(req.get('content-length') ?? 0)
  const chunked = req.get('transfer-encoding') !== undefined
  if ((length > 0 || chunked) && !req.is('application/json')) {
    return next(new IdentityError('VALIDATION_ERROR', 'Content-Type must be application/json'))
  }
  next()
}

/** Creates the router; mount it where you like: `app.use('/identity', createRouter(service))`. */
export function createRouter(service: IdentityService, options: RouterOptions = {}): Router {
  const router = express.Router()
  const body = [requireJson, express.json({ limit: options.bodyLimit ?? '1mb', strict: true, type: 'application/json' })]
  const query = (req: Request) => ({ ...(req.query as Record<string, unknown>) })

  router.post('/did-auth-jwt', body, respond((req) => service.generateToken(req.body, authOf(req))))

  router.get(['/wallets', '/wallet'], respond((req) => service.getWallets(query(req), authOf(req))))
  router.post('/wallet', body, respond((req) => service.generateWallet(req.body ?? {}, authOf(req))))
  router.post('/wallet/configure', body, respond((req) => service.configureWallet(req.body, authOf(req))))
  router.post('/wallet/rename', body, respond((req) => service.renameWallets(req.body, authOf(req))))
  router.delete('/wallet', body, respond((req) => service.deleteWallets(req.body, authOf(req))))

  router.post('/vaults', body, respond((req) => service.createVault(req.body, authOf(req))))
  router.get('/vaults', respond((req) => service.getVaults(query(req), authOf(req))))
  router.delete('/vaults', body, respond((req) => service.deleteVault(req.body, authOf(req))))
  router.post('/vaults/:vaultID/wallet', body, respond((req) => service.createVaultWallet(String(req.params.vaultID), req.body ?? {}, authOf(req))))

  if (options.resolverRoute !== false) {
    router.get(
      '/1.0/identifiers/:did',
      respond(async (req) => {
        const result = await service.resolveDid(String(req.params.did))
        const error = result.didResolutionMetadata.error
        if (error) throw new IdentityError(error === 'notFound' ? 'NOT_FOUND' : 'VALIDATION_ERROR', `${error}: ${result.didResolutionMetadata.message ?? 'DID could not be resolved'}`)
        return { '@context': 'https://w3id.org/did-resolution/v1', ...result }
      }),
    )
  }

  // Errors of this router only (body parsing, operations); other routes of the app are untouched.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const body = httpError(err)
    res.status(body.statusCode).json(body)
  })
  return router
}
