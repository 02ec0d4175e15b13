import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { forcedError, parsePrefer } from '../preferences.js'
import { allowHeader } from '../router.js'

/**
 * Preferences (CONTRACT B2, C1): `Prefer: return=representation` for the operation, and
 * `Prefer: code=<status>`, which answers that status with its business code here, as Stoplight
 * Prism does: after routing, authentication and permission (B4's first checks) and after an
 * override (C2: it answers before anything else), before any effect.
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
