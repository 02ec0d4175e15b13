/** Request headers a browser may send cross-origin (CONTRACT B6). */
export const corsAllowedHeaders = [
  'Authorization',
  'Content-Type',
  'Prefer',
  'X-Request-Id',
  'X-Sandbox-Id',
  'X-Sandbox-Delay',
  'X-Sandbox-Scenario',
]

/** Response headers a cross-origin caller may read. */
export const corsExposedHeaders = [
  'X-Request-Id',
  'Location',
  'Allow',
  'Retry-After',
  'WWW-Authenticate',
]

/** Methods a cross-origin caller may use (`OPTIONS` too: a stub may answer it, CONTRACT C2). */
export const allowedMethods = 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS'

const exposed = corsExposedHeaders.join(',')
const allowed = corsAllowedHeaders.join(',')

/**
 * Whether a request is a CORS preflight: an `OPTIONS` asking, with
 * `Access-Control-Request-Method`, whether the real request may be sent (the browser's question,
 * answered 204 and never journaled). `requestMethod` is that header's value, absent or null.
 */
export function isPreflight(method: string, requestMethod: string | null | undefined): boolean {
  return method === 'OPTIONS' && !!requestMethod
}

/** The longest `Access-Control-Request-Headers` echoed (a few dozen names). */
const MAX_REQUESTED_HEADERS = 4096

/**
 * A preflight's `Access-Control-Request-Headers` when it is a list of header names (tokens, by
 * commas) of at most {@link MAX_REQUESTED_HEADERS} characters, or null: what the page asked to
 * send is allowed besides the headers above, as the `cors` middleware answers by default, so a
 * page's own headers (`X-Client` of an override's `headers` condition, `X-Requested-With`,
 * `traceparent`) pass the preflight. On the Node server the origin was allowed already: the
 * Origin check is what guards the sandbox; MSW's answers never leave the process.
 */
function requestedHeaders(value: string | null | undefined): string | null {
  if (!value || value.length > MAX_REQUESTED_HEADERS) return null
  const names = value.trim().toLowerCase()
  return /^[!#$%&'*+.^_`|~0-9a-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9a-z-]+)*$/.test(names)
    ? names
    : null
}

/**
 * The CORS headers of an answer (CONTRACT B6), added to `headers`: for a request from `origin`
 * (null when it sent none: curl, servers, a same-origin page), a preflight's too. Both
 * transports build them here; what differs is who decides which origins get them (the Node
 * server's Origin policy, CONTRACT C3; MSW's handlers answer any, as their answers never leave
 * the process). `withoutOrigin`: answer a request without `Origin` too, with `*` (MSW, where a
 * DOM-like test environment such as happy-dom checks CORS on its own fetch). `credentials`:
 * whether the browser may send its cookies (not for an origin allowed only by `*`).
 * `requestHeaders`: a preflight's `Access-Control-Request-Headers`.
 */
export function addCorsHeaders(
  headers: Record<string, string>,
  origin: string | null,
  preflight: boolean,
  withoutOrigin: boolean,
  credentials = true,
  requestHeaders?: string | null,
): void {
  if (origin === null) {
    if (!preflight && !withoutOrigin) return
    headers['access-control-allow-origin'] = '*'
  } else {
    headers['access-control-allow-origin'] = origin
    if (credentials) headers['access-control-allow-credentials'] = 'true'
    headers.vary = 'Origin'
  }
  if (preflight) {
    headers['access-control-allow-methods'] = allowedMethods
    const asked = requestedHeaders(requestHeaders)
    headers['access-control-allow-headers'] = asked === null ? allowed : `${allowed},${asked}`
    headers['access-control-max-age'] = '86400'
    // The answer depends on the headers asked for too: a cache keeps one per list.
    headers.vary =
      headers.vary === undefined
        ? 'Access-Control-Request-Headers'
        : `${headers.vary}, Access-Control-Request-Headers`
  }
  headers['access-control-expose-headers'] = exposed
}
