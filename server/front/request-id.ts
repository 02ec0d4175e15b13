import type { Step } from '../../http/compose.js'
import { requestIdFor } from '../../http/pipeline.js'
import type { Front } from './context.js'

/**
 * The request id (CONTRACT B6), chosen once here for every answer the front or the pipeline
 * makes (the pipeline takes it from the request) and for the log; a closing server's answers
 * close their connection.
 */
export const requestId: Step<Front, void> = {
  name: 'request id',
  run(f, next) {
    const sent = f.req.headers['x-request-id']
    const id = requestIdFor(typeof sent === 'string' ? sent : null)
    f.req.headers['x-request-id'] = id
    f.frame['x-request-id'] = id
    if (f.server.draining) f.frame.connection = 'close'
    next(f)
  },
}
