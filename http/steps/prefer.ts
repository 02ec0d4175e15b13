import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { forcedError, parsePrefer } from '../preferences.js'
import { allowHeader } from '../router.js'

/**
 * Preferences (CONTRACT B2, C1): `Prefer: return=representation` for the operation, and
 * `Prefer: code=<status>`, which answers that status with its business code here, before
 * permission, as Stoplight Prism does.
 */
export const prefer: Step<Context, Answer> = {
  name: 'prefer',
  run(c, next) {
    if (c.operation === null) return next(c)
    const preferences = parsePrefer(c.request)
    c.preferences = preferences
    if (preferences.code !== undefined) {
      const forced = forcedError(preferences, allowHeader(c.match!.route), c.conflict)
      if (forced) throw forced
    }
    return next(c)
  },
}
