import { noContent } from '../../contract/envelope.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { allowHeader, operationOf } from '../router.js'

/**
 * The route (CONTRACT B2): the route the path matches and its operation for the method. A
 * preflight (`OPTIONS`) is answered here, 204 with `Allow`. Without a route or an operation
 * the request goes on all the same: an override may answer it (a stub), else the operate
 * step answers 404, 405 or the proxy's answer.
 */
export const match: Step<Context, Answer> = {
  name: 'match',
  run(c, next) {
    const found = c.host.routes.router.match(c.path)
    c.match = found
    if (found === null) return next(c)
    if (c.request.method === 'OPTIONS') return noContent({ allow: allowHeader(found.route) })
    c.operation = operationOf(found.route, c.request.method)
    return next(c)
  },
}
