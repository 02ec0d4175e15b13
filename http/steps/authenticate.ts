import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { authenticate as caller } from '../auth.js'

/**
 * Authentication (CONTRACT B4): who is calling, from `Authorization: Bearer <token>` (401
 * without one or with a bad one), for an operation that needs a token. A path or method the API
 * lacks needs none (its 404 or 405 comes first; a stub answers anyone).
 */
export const authenticate: Step<Context, Answer> = {
  name: 'authenticate',
  run(c, next) {
    if (c.operation !== null && c.operation.auth !== false)
      c.principal = caller(c.request.header('authorization'), c.instance, c.host.catalog.accounts)
    return next(c)
  },
}
