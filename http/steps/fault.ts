import { ApiError } from '../../contract/api-error.js'
import { codes } from '../../contract/codes.js'
import { dropped } from '../../contract/envelope.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'

/**
 * Faults (CONTRACT C1): at the settings' rates, drawn from the sandbox's seeded stream, a
 * request meets a dropped connection, a 500 or a 503 instead of its answer. Only a request the
 * API would carry out: after routing, authentication and permission (a 404, 405, 401 or 403
 * is never a fault), an override (which answers before anything else, C2) and `Prefer: code=`.
 */
export const fault: Step<Context, Answer> = {
  name: 'fault',
  run(c, next) {
    const { config } = c.instance
    if ((config.dropRate === 0 && config.errorRate === 0) || c.operation === null) return next(c)
    const roll = c.instance.faultRandom()
    if (roll < config.dropRate) return dropped()
    if (roll < config.dropRate + config.errorRate) {
      const name = c.instance.faultRandom() < 0.5 ? 'internalError' : 'serviceUnavailable'
      throw ApiError.of(name, `${codes[name].message} (injected fault)`)
    }
    return next(c)
  },
}
