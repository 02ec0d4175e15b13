import { createMiddleware } from '@mswjs/http-middleware'
import type { NextFunction, Request, Response } from 'express'
import express from 'express'
import { ApiError } from '../handlers/api-error.js'
import { failure } from '../handlers/envelope.js'
import type { ApiResponse } from '../handlers/exchange.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import type { CorsHandler } from './cors.js'
import { docsPage } from './docs-page.js'
import { requestUrl } from './node-request.js'
import type { Middleware } from './transport.js'
import { mswTransport } from './transport.js'

export interface AppOptions {
  cors: CorsHandler
  /** The request log, when on. */
  log?: Middleware | undefined
  /** Serve the API through MSW's own middleware too (the `msw` transport), not only the docs. */
  msw: boolean
  /** Reports unexpected errors (answered 500 without details). */
  onUnexpectedError: (error: unknown) => void
}

/**
 * The express app: the reference page (`/docs`), the 404 envelope for paths outside the API,
 * and, with the `msw` transport, the API itself through @mswjs/http-middleware. Express adds
 * only transport: request ids, CORS, the request log, and a 500 envelope for the unexpected.
 */
export function createApp(sandbox: Sandbox, options: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(mswTransport())
  if (options.log) app.use(options.log)
  app.use(options.cors)
  app.use(docsPage())
  if (options.msw) {
    // @mswjs/http-middleware types its handlers with msw's CommonJS build; ours come from the ESM build.
    const msw = createMiddleware(
      ...(sandbox.handlers as unknown as Parameters<typeof createMiddleware>),
    )
    // It resolves `new URL(req.url, origin)`: `//x` would throw (a 500) or become the host x.
    app.use((req: Request, res: Response, next: NextFunction) =>
      req.url.startsWith('//') ? next() : msw(req, res, next),
    )
  }
  // Paths no handler claims get the pipeline's own 404 envelope.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const url = requestUrl(req.originalUrl)
      if (!url) {
        send(
          res,
          failure(ApiError.of('invalidParameter', 'the request target is not a valid path')),
        )
        return
      }
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
