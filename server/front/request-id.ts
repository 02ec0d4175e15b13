import type { IncomingMessage } from 'node:http'
import type { Step } from '../../http/compose.js'
import { requestIdFor } from '../../http/pipeline.js'
import type { Front } from './context.js'

/**
 * The request id (CONTRACT B6), chosen once here for every answer the front or the pipeline
 * makes (the lean transport hands it to the pipeline; through MSW the pipeline chooses the same
 * way), and `Vary: Origin` on every one of them, refusals too (see the cors step); a closing
 * server's answers close their connection. Not written into the request's
 * headers: the journal keeps the headers the client sent, and it sent none.
 */
export const requestId: Step<Front, void> = {
  name: 'request id',
  run(f, next) {
    f.frame['x-request-id'] = requestIdOf(f.req)
    f.frame.vary = 'Origin'
    if (f.server.draining) f.frame.connection = 'close'
    next(f)
  },
}

/** The id of a request's answers: the `X-Request-Id` it sent (B6), else a new one. */
export function requestIdOf(req: IncomingMessage | null): string {
  const sent = req?.headers['x-request-id']
  return requestIdFor(typeof sent === 'string' ? sent : null)
}
