import { integerParameter } from '../../contract/params.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { drawDelay, MAX_DELAY_MS } from '../../state/runtime-config.js'

/** Latency (CONTRACT C1): the request waits its `X-Sandbox-Delay`, else the settings' delay. */
export const delay: Step<Context, Answer> = {
  name: 'delay',
  run(c, next) {
    const raw = c.request.header('x-sandbox-delay')
    const ms =
      raw !== null
        ? integerParameter('X-Sandbox-Delay', raw.trim(), 0, MAX_DELAY_MS)
        : drawDelay(c.instance.config.delay, c.instance.delayRandom)
    if (ms === 0) return next(c)
    c.request.willWait?.()
    return sleep(ms).then(() => next(c))
  },
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
