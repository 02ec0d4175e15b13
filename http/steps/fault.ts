import { ApiError } from '../../contract/api-error.js'
import { codes } from '../../contract/codes.js'
import { dropped } from '../../contract/envelope.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'

/**
 * Faults (CONTRACT C1): at the settings' rates, drawn from the sandbox's seeded stream, a
 * request meets a dropped connection, a 500 or a 503 instead of its answer. Only a request that
 * would be carried out (an operation, or one forwarded to the proxy target): after routing,
 * authentication and permission (a path the API lacks with nothing to forward to, a method a
 * route lacks, a 401 or a 403 is never a fault), an override (which answers before anything
 * else, C2) and `Prefer: code=`.
 */
export const fault: Step<Context, Answer> = {
  name: 'fault',
  run(c, next) {
    const { config } = c.instance
    if (config.dropRate === 0 && config.errorRate === 0) return next(c)
    if (c.operation === null && (c.match !== null || !c.host.unmatched)) return next(c)
    const roll = c.instance.faultRandom()
    if (roll < config.dropRate) return dropped()
    if (roll < config.dropRate + config.errorRate) {
      const name = c.instance.faultRandom() < 0.5 ? 'internalError' : 'serviceUnavailable'
      throw ApiError.of(name, `${codes[name].message} (injected fault)`)
    }
    return next(c)
  },
}
