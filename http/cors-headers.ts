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

/** Methods a cross-origin caller may use. */
export const allowedMethods = 'GET,HEAD,PUT,PATCH,POST,DELETE'

/**
 * The CORS headers of an in-process answer (MSW's handlers, where a DOM-like test
 * environment such as happy-dom enforces CORS on its own `fetch`): any origin may call, as
 * the answer never leaves the process. The Node server applies its own Origin policy instead.
 * `origin` is the request's `Origin`, or `*` when it sent none.
 */
export function openCorsHeaders(origin: string, preflight: boolean): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    ...(origin === '*' ? {} : { 'access-control-allow-credentials': 'true', vary: 'Origin' }),
    ...(preflight
      ? {
          'access-control-allow-methods': allowedMethods,
          'access-control-allow-headers': corsAllowedHeaders.join(','),
          'access-control-max-age': '86400',
        }
      : {}),
    'access-control-expose-headers': corsExposedHeaders.join(','),
  }
}
