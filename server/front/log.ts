import type { Step } from '../../http/compose.js'
import type { Front } from './context.js'

/** The request log (`--quiet` turns it off): one line per request once its answer is written. */
export const log: Step<Front, void> = {
  name: 'log',
  run(f, next) {
    const { log } = f.server
    if (log) log(f.req, f.res, () => next(f))
    else next(f)
  },
}
