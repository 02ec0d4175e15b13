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
 * 204 without authentication, the contract's request headers allowed, `X-Request-Id` exposed.
 */
export function corsHandler(origins?: string[]) {
  const forOrigin = cors({
    origin: origins ?? true,
    credentials: true,
    allowedHeaders: corsAllowedHeaders,
    exposedHeaders: corsExposedHeaders,
    maxAge: 86_400,
  })
  const anyOrigin = cors({
    origin: '*',
    allowedHeaders: corsAllowedHeaders,
    exposedHeaders: corsExposedHeaders,
    maxAge: 86_400,
  })
  const exposed = corsExposedHeaders.join(',')
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    if (req.headers.origin !== undefined) forOrigin(req, res, next)
    else if (origins) next()
    else if (req.method === 'OPTIONS') anyOrigin(req, res, next)
    else {
      // Without an Origin (curl, servers, tests) the answer is the same for everyone: two
      // constant headers, without running the cors package on the hot path.
      res.setHeader('access-control-allow-origin', '*')
      res.setHeader('access-control-expose-headers', exposed)
      next()
    }
  }
}

export type CorsHandler = ReturnType<typeof corsHandler>
