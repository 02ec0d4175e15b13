import { createMiddleware } from '@mswjs/http-middleware'
import cors from 'cors'
import type { NextFunction, Request, Response } from 'express'
import express from 'express'
import { ApiError } from '../handlers/api-error.js'
import { failure } from '../handlers/envelope.js'
import type { ApiResponse } from '../handlers/exchange.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { docsPage } from './docs-page.js'
import { requestLog } from './request-log.js'
import { transport } from './transport.js'

export interface AppOptions {
  /** Writes the one-line request log; omitted means no log. */
  log?: ((line: string) => void) | undefined
  /** Allowed CORS origins; default any origin. */
  corsOrigin?: string[] | undefined
  /** Reports unexpected errors (answered 500 without details). */
  onUnexpectedError: (error: unknown) => void
}

/** Request headers a browser may send cross-origin (CONTRACT B6). */
export const corsAllowedHeaders = [
  'Authorization',
  'Content-Type',
  'Prefer',
  'X-Request-Id',
  'X-Sandbox-Id',
  'X-Sandbox-Delay',
]

/**
 * The express app around the sandbox's MSW handlers. The handlers do the API; express does
 * only transport: request ids, CORS, the request log, and a 500 envelope for the unexpected.
 */
export function createApp(sandbox: Sandbox, options: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(transport())
  if (options.log) app.use(requestLog(options.log))
  app.use(
    cors({
      origin: options.corsOrigin ?? true,
      credentials: true,
      allowedHeaders: corsAllowedHeaders,
      exposedHeaders: ['X-Request-Id', 'Location', 'Allow', 'Retry-After', 'WWW-Authenticate'],
      maxAge: 86_400,
    }),
  )
  // @mswjs/http-middleware types its handlers with msw's CommonJS build; ours come from the ESM build.
  app.use(docsPage())
  app.use(createMiddleware(...(sandbox.handlers as unknown as Parameters<typeof createMiddleware>)))
  // Paths the handlers do not claim get the pipeline's own 404 envelope.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const url = new URL(req.originalUrl, 'http://sandbox.local')
      const answer = await sandbox.handle({
        method: req.method,
        url,
        header: (name) => req.get(name) ?? null,
        readBody: async () => new Uint8Array(0),
      })
      send(res, answer)
    } catch (error) {
      next(error)
    }
  })
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    options.onUnexpectedError(error)
    if (res.headersSent) {
      res.destroy()
      return
    }
    send(res, failure(ApiError.of('internalError')))
  })
  return app
}

function send(res: Response, answer: ApiResponse): void {
  res
    .status(answer.status)
    .set(answer.headers)
    .end(answer.body ?? undefined)
}
