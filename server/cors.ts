import type { IncomingMessage } from 'node:http'
import { allowedMethods, corsAllowedHeaders, corsExposedHeaders } from '../http/cors-headers.js'
import type { OriginPolicy } from './guard.js'

const exposed = corsExposedHeaders.join(',')
const allowedHeaders = corsAllowedHeaders.join(',')

/**
 * CORS of CONTRACT B6 and C3: the response headers for an allowed origin; a preflight is
 * answered 204 without authentication, an origin that is not allowed 403 (by the caller).
 * Without an `Origin` (curl, servers, tests, a same-origin page) there is no cross-origin
 * caller: no CORS headers but for a preflight. Every answer says it varies by `Origin`, as the
 * Fetch standard asks when CORS headers depend on it, so a cache never hands an answer without
 * them (or with another origin's) to a cross-origin caller. The headers are added to
 * `headers` (what the answer will carry), not set on the response, so the answer writes them
 * all at once. Returns `preflight` (answer 204 with them), `refused` (answer 403) or `next`.
 */
export function cors(
  req: IncomingMessage,
  allows: OriginPolicy,
  headers: Record<string, string>,
  /** Whether the request's Host names the server by a name it was given (not `--allowed-hosts all`). */
  named: (host: string) => boolean,
): 'preflight' | 'refused' | 'next' {
  const origin = req.headers.origin
  const preflight = req.method === 'OPTIONS' && !!req.headers['access-control-request-method']
  headers.vary = 'Origin'
  if (origin === undefined) {
    if (!preflight) return 'next'
    headers['access-control-allow-origin'] = '*'
  } else {
    // A page the sandbox served itself (the console at a host --allowed-hosts names) is
    // same-origin: that name was given one by one. `--allowed-hosts all` vouches for no name (a
    // DNS-rebinding page is same-origin with any Host it likes).
    const host = req.headers.host
    if (!allows(origin) && !(host !== undefined && named(host) && sameOrigin(origin, host)))
      return 'refused'
    headers['access-control-allow-origin'] = origin
    headers['access-control-allow-credentials'] = 'true'
  }
  if (!preflight) {
    headers['access-control-expose-headers'] = exposed
    return 'next'
  }
  headers['access-control-allow-methods'] = allowedMethods
  headers['access-control-allow-headers'] = allowedHeaders
  headers['access-control-max-age'] = '86400'
  return 'preflight'
}

/**
 * Whether `origin` is the origin of the request's own `Host` (`http://sandbox.test:4010` for
 * `Host: sandbox.test:4010`), default ports aside.
 */
export function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  const match = /^(https?):\/\/([^/]+)$/i.exec(origin)
  if (!match) return false
  const scheme = match[1]!.toLowerCase()
  const strip = (value: string) =>
    value.toLowerCase().replace(scheme === 'https' ? /:443$/ : /:80$/, '')
  return strip(match[2]!) === strip(host)
}
