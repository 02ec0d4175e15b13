import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { CONTROL_PREFIX, isControlPath } from '../context.js'
import { noRoute } from './errors.js'

/**
 * The control API (CONTRACT C1, C2): `/__sandbox/...` goes to the host's control routes, for
 * the caller's sandbox, never journaled; 404 when the control API is off.
 */
export const control: Step<Context, Answer> = {
  name: 'control',
  run(c, next) {
    const { pathname } = c.request.url
    if (!isControlPath(pathname)) return next(c)
    const answer = c.host.control(
      c.request,
      pathname.slice(CONTROL_PREFIX.length) || '/',
      c.instance,
    )
    if (!answer) throw noRoute(c.request)
    return answer
  },
}
