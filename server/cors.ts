import type { IncomingMessage } from 'node:http'
import { allowedMethods, corsAllowedHeaders, corsExposedHeaders } from '../http/cors-headers.js'
import type { OriginPolicy } from './guard.js'

const exposed = corsExposedHeaders.join(',')
const allowedHeaders = corsAllowedHeaders.join(',')

/** What CORS makes of a request: the headers its answer carries, and what happens next. */
export interface Cors {
  /** `preflight`: answer 204 with the headers; `refused`: answer 403; `next`: go on. */
  outcome: 'preflight' | 'refused' | 'next'
  /** The request id first, then the CORS headers of the answer. */
  headers: Record<string, string>
}

/**
 * CORS of CONTRACT B6 and C3: the response headers for an allowed origin; a preflight is
 * answered 204 without authentication, an origin that is not allowed 403 (by the caller).
 * Without an `Origin` (curl, servers, tests) the answer is the same for everyone: two
 * constant headers. Headers are returned, not set, so an answer writes them all at once.
 */
export function cors(req: IncomingMessage, allows: OriginPolicy, requestId: string): Cors {
  const origin = req.headers.origin
  const preflight = req.method === 'OPTIONS' && !!req.headers['access-control-request-method']
  const headers: Record<string, string> = { 'x-request-id': requestId }
  if (origin === undefined) {
    headers['access-control-allow-origin'] = '*'
  } else {
    headers.vary = 'Origin'
    if (!allows(origin)) return { outcome: 'refused', headers }
    headers['access-control-allow-origin'] = origin
    headers['access-control-allow-credentials'] = 'true'
  }
  if (!preflight) {
    headers['access-control-expose-headers'] = exposed
    return { outcome: 'next', headers }
  }
  headers['access-control-allow-methods'] = allowedMethods
  headers['access-control-allow-headers'] = allowedHeaders
  headers['access-control-max-age'] = '86400'
  return { outcome: 'preflight', headers }
}
