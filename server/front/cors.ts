import type { Step } from '../../http/compose.js'
import { addCorsHeaders, isPreflight } from '../../http/cors-headers.js'
import { originRefused } from '../guard.js'
import type { Front } from './context.js'
import { refuse } from './refuse.js'

/**
 * CORS (CONTRACT B6, C3): an `Origin` the server's policy does not allow is 403; an allowed one
 * gets the CORS headers (credentials only for one allowed by name or as loopback, not by `*`),
 * a preflight its 204 here, without authentication. Without an `Origin`
 * (curl, servers, tests, a same-origin page) there is no cross-origin caller: no CORS headers
 * but for a preflight. Every answer varies by `Origin` (set with the request id), as the Fetch
 * standard asks when CORS headers depend on it, so a cache never hands an answer without them
 * (or with another origin's) to a cross-origin caller.
 */
export const cors: Step<Front, void> = {
  name: 'cors',
  run(f, next) {
    const { req, frame } = f
    const origin = req.headers.origin
    const preflight = isPreflight(req.method ?? '', req.headers['access-control-request-method'])
    const access = origin === undefined ? 'named' : allowed(f, origin)
    if (origin !== undefined && !access) return refuse(f, originRefused(origin))
    addCorsHeaders(
      frame,
      origin ?? null,
      preflight,
      false,
      access === 'named',
      req.headers['access-control-request-headers'],
    )
    if (!preflight) return next(f)
    // No Content-Length: a 204 never carries one (RFC 9110 section 8.6).
    f.res.writeHead(204, frame)
    f.res.end()
  },
}

/**
 * Whether an origin may call: the policy's (loopback, `--cors-origin`), or the request's own
 * host's origin when that host was named one by one (a page the sandbox served itself, the
 * console at a host `--allowed-hosts` names). `--allowed-hosts all` vouches for no name: a
 * DNS-rebinding page is same-origin with any Host it likes.
 */
function allowed(f: Front, origin: string): 'named' | 'any' | false {
  const host = f.req.headers.host
  if (host !== undefined && f.server.named(host) && sameOrigin(origin, host)) return 'named'
  return f.server.origins(origin)
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
