import type { IncomingMessage, ServerResponse } from 'node:http'

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

const allowedMethods = 'GET,HEAD,PUT,PATCH,POST,DELETE'
const exposed = corsExposedHeaders.join(',')
const allowedHeaders = corsAllowedHeaders.join(',')

/** Which origins get CORS headers: a list, or any. */
export type OriginPolicy = (origin: string) => boolean

/** Any origin, or only the listed ones. */
export function originPolicy(origins?: readonly string[]): OriginPolicy {
  if (!origins) return () => true
  const allowed = new Set(origins)
  return (origin) => allowed.has(origin)
}

/**
 * CORS of CONTRACT B6: the response headers for an allowed origin, and preflights answered 204
 * without authentication. Returns true when it answered (a preflight), false to go on.
 * Without an `Origin` (curl, servers, tests) the answer is the same for everyone: two
 * constant headers.
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allows: OriginPolicy,
): boolean {
  const origin = req.headers.origin
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method']
  if (origin === undefined) {
    res.setHeader('access-control-allow-origin', '*')
    if (!preflight) {
      res.setHeader('access-control-expose-headers', exposed)
      return false
    }
  } else {
    res.setHeader('vary', 'Origin')
    if (!allows(origin)) return false
    res.setHeader('access-control-allow-origin', origin)
    res.setHeader('access-control-allow-credentials', 'true')
    if (!preflight) {
      res.setHeader('access-control-expose-headers', exposed)
      return false
    }
  }
  res.setHeader('access-control-allow-methods', allowedMethods)
  res.setHeader('access-control-allow-headers', allowedHeaders)
  res.setHeader('access-control-max-age', '86400')
  res.setHeader('content-length', '0')
  res.writeHead(204)
  res.end()
  return true
}
