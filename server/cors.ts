import type { IncomingMessage, ServerResponse } from 'node:http'
import { allowedMethods, corsAllowedHeaders, corsExposedHeaders } from '../http/cors-headers.js'
import type { OriginPolicy } from './guard.js'

const exposed = corsExposedHeaders.join(',')
const allowedHeaders = corsAllowedHeaders.join(',')

/**
 * CORS of CONTRACT B6 and C3: the response headers for an allowed origin, and preflights
 * answered 204 without authentication. Returns `answered` for a preflight it answered,
 * `refused` for an origin that is not allowed (the caller answers 403), `next` to go on.
 * Without an `Origin` (curl, servers, tests) the answer is the same for everyone: two
 * constant headers.
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allows: OriginPolicy,
): 'answered' | 'refused' | 'next' {
  const origin = req.headers.origin
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method']
  if (origin === undefined) {
    res.setHeader('access-control-allow-origin', '*')
    if (!preflight) {
      res.setHeader('access-control-expose-headers', exposed)
      return 'next'
    }
  } else {
    res.setHeader('vary', 'Origin')
    if (!allows(origin)) return 'refused'
    res.setHeader('access-control-allow-origin', origin)
    res.setHeader('access-control-allow-credentials', 'true')
    if (!preflight) {
      res.setHeader('access-control-expose-headers', exposed)
      return 'next'
    }
  }
  res.setHeader('access-control-allow-methods', allowedMethods)
  res.setHeader('access-control-allow-headers', allowedHeaders)
  res.setHeader('access-control-max-age', '86400')
  res.setHeader('content-length', '0')
  res.writeHead(204)
  res.end()
  return 'answered'
}
