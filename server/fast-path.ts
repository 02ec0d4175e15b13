import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiError } from '../handlers/api-error.js'
import { failure } from '../handlers/envelope.js'
import type { ApiResponse } from '../handlers/exchange.js'
import { requestIdFor } from '../handlers/pipeline.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { claims } from '../sandbox/msw-handlers.js'
import type { CorsHandler } from './cors.js'
import { fromNodeRequest, requestUrl } from './node-request.js'
import type { Middleware } from './transport.js'
import { drop } from './transport.js'

/**
 * The lean HTTP path for the requests the sandbox's MSW handler claims: the same predicate and
 * the same pipeline the handler wraps, fed from Node's request without Fetch API objects.
 * Returns false for other paths, which the express app serves.
 */
export function createFastPath(
  sandbox: Sandbox,
  options: { cors: CorsHandler; log?: Middleware | undefined },
) {
  const claim = { origin: null, basePath: sandbox.options.basePath }
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = requestUrl(req.url)
    if (!url || !claims(claim, url)) return false
    const serve = () => {
      // A CORS preflight is answered by the cors package, before the pipeline that sets request ids.
      if (req.method === 'OPTIONS') {
        const sent = req.headers['x-request-id']
        res.setHeader('x-request-id', requestIdFor(typeof sent === 'string' ? sent : null))
      }
      options.cors(req, res, () => {
        sandbox.handle(fromNodeRequest(req, url)).then(
          (answer) => send(req, res, answer),
          (error: unknown) => {
            sandbox.options.onUnexpectedError(error)
            send(req, res, failure(ApiError.of('internalError')))
          },
        )
      })
    }
    if (options.log) options.log(req, res, serve)
    else serve()
    return true
  }
}

function send(req: IncomingMessage, res: ServerResponse, answer: ApiResponse): void {
  if (answer.drop) {
    drop(req, res)
    return
  }
  if (res.headersSent || res.destroyed) return
  const headers: Record<string, string | number> = answer.headers
  if (answer.body !== null) headers['content-length'] = Buffer.byteLength(answer.body)
  res.writeHead(answer.status, headers)
  res.end(answer.body ?? undefined)
}
