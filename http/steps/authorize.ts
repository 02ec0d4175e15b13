import { ApiError } from '../../contract/api-error.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'

/**
 * Permission (CONTRACT B4): 403 / 40300 naming the rule, unless the caller is an admin or the
 * operation lets them in (`anyone` signed in, or `own`: a member on their own account). This
 * is the one place operations' permissions are applied; each resource's definition says which
 * apply to it (`permissions`).
 */
export const authorize: Step<Context, Answer> = {
  name: 'authorize',
  run(c, next) {
    const { operation, principal } = c
    if (operation === null || principal === null || principal.admin) return next(c)
    if (operation.permission === 'anyone') return next(c)
    if (
      operation.permission === 'own' &&
      c.match!.params[c.host.routes.ownParam] === String(principal.userId)
    )
      return next(c)
    throw ApiError.of(
      'permissionDenied',
      `permission denied: ${operation.denied ?? 'only an admin may do this'}`,
    )
  },
}
