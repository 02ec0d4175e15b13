import type { IncomingMessage, ServerResponse } from 'node:http'
import cors from 'cors'

/** Request headers a browser may send cross-origin (CONTRACT B6). */
export const corsAllowedHeaders = [
  'Authorization',
  'Content-Type',
  'Prefer',
  'X-Request-Id',
  'X-Sandbox-Id',
  'X-Sandbox-Delay',
]

/** Response headers a cross-origin caller may read. */
export const corsExposedHeaders = [
  'X-Request-Id',
  'Location',
  'Allow',
  'Retry-After',
  'WWW-Authenticate',
]

/**
 * CORS of CONTRACT B6 (the `cors` package): any origin unless restricted, preflights answered
 * 204 without authentication.
 */
export function corsHandler(origins?: string[]) {
  const handler = cors({
    origin: origins ?? true,
    credentials: true,
    allowedHeaders: corsAllowedHeaders,
    exposedHeaders: corsExposedHeaders,
    maxAge: 86_400,
  })
  // Only browsers read CORS headers, and they send Origin on every cross-origin request: other
  // clients (curl, mobile apps, tests) get smaller responses.
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    if (req.headers.origin === undefined) next()
    else handler(req, res, next)
  }
}

export type CorsHandler = ReturnType<typeof corsHandler>
