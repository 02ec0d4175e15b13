import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Step } from '../../http/compose.js'
import { compose } from '../../http/compose.js'
import type { FrontServer } from './context.js'
import { Front } from './context.js'
import { cors } from './cors.js'
import { host } from './host.js'
import { log } from './log.js'
import { msw } from './msw.js'
import { pages } from './pages.js'
import { pipeline } from './pipeline.js'
import { requestId } from './request-id.js'
import { target } from './target.js'

export type { FrontServer } from './context.js'

/**
 * The Node server's front, one request at a time: the same shape as the request path
 * (http/pipeline.ts), a list of named steps run in order by the same runner. Each step
 * answers itself (a refusal, a page) or hands the request on; the last hands it to the
 * sandbox's pipeline.
 */
export function frontOf(server: FrontServer): (req: IncomingMessage, res: ServerResponse) => void {
  const steps: Array<Step<Front, void>> = [
    log, // one line per request, once answered (unless --quiet)
    requestId, // one X-Request-Id for every answer and the log
    target, // the target as a URL: 400 for none, or a hidden dot segment
    host, // 403 for a Host not given (DNS rebinding, CONTRACT C3)
    cors, // 403 for an Origin not allowed; CORS headers; a preflight's 204
    pages(server.sandbox), // the landing page, /docs, the console
    msw, // --transport msw: through msw's getResponse
    pipeline(server.sandbox), // the sandbox's pipeline
  ]
  const run = compose(steps, () => undefined)
  return (req, res) => run(new Front(server, req, res))
}
