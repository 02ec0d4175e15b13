import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { noRoute } from './errors.js'

/** The base path: the API lives under it (404 elsewhere); the steps after it see the path under it. */
export const basePath: Step<Context, Answer> = {
  name: 'base path',
  run(c, next) {
    const { pathname } = c.request.url
    const base = c.host.basePath
    if (base !== '' && pathname !== base && !pathname.startsWith(`${base}/`))
      throw noRoute(c.request)
    c.path = pathname.slice(base.length) || '/'
    return next(c)
  },
}
