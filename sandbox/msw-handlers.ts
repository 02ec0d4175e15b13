import type { HttpHandler } from 'msw'
import type { ApiResponse } from '../contract/exchange.js'
import { addCorsHeaders, isPreflight } from '../http/cors-headers.js'
import { requestIdFor } from '../http/pipeline.js'
import { fromFetchRequest } from '../contract/exchange.js'
import { ApiError } from '../contract/api-error.js'
import { failure } from '../contract/envelope.js'
import { failed, http, passthrough, respond } from './msw.js'

export interface Claim {
  origin: string | null
  basePath: string
  openApiPath: string | null
  /** The API's first path segments (`users`, `sessions`, …). */
  roots: readonly string[]
}

/**
 * Whether a URL belongs to the sandbox: under the base URL, or the control API and
 * the OpenAPI document on the same origin. With a relative root base, only the API's own first
 * segments (`/users`, `/products`, …) are claimed, so an app's pages and assets pass through.
 */
export function claims({ origin, basePath, openApiPath, roots }: Claim, url: URL): boolean {
  const expected = origin ?? (typeof location === 'undefined' ? null : location.origin)
  if (expected !== null && url.origin !== expected) return false
  const path = url.pathname
  if (path === '/__sandbox' || path.startsWith('/__sandbox/') || path === openApiPath) return true
  if (basePath !== '') return path === basePath || path.startsWith(`${basePath}/`)
  if (origin !== null) return true
  return roots.includes(path.split('/')[1] ?? '')
}

/**
 * A Fetch API `Response` from the pipeline's answer (a network error when it dropped). An
 * answer Fetch refuses to carry (answers are checked where they are made; this is the last
 * resort) becomes a logged 500 envelope instead of a thrown error.
 */
export function toFetchResponse(
  response: ApiResponse,
  onError: (error: unknown) => void = (error) =>
    console.error('[shop-sandbox] cannot write an answer:', error),
): Response {
  if (response.drop) return failed()
  try {
    return respond(response.bytes ?? response.body, {
      status: response.status,
      headers: response.setCookies
        ? [
            ...Object.entries(response.headers),
            ...response.setCookies.map((line) => ['set-cookie', line] as [string, string]),
          ]
        : response.headers,
    })
  } catch (error) {
    onError(error)
    const { body, headers, status } = failure(ApiError.of('internalError'))
    if (response.headers['x-request-id']) headers['x-request-id'] = response.headers['x-request-id']
    return respond(body, { status, headers })
  }
}

/**
 * The sandbox as MSW request handlers: one handler with a custom predicate, so MSW does one
 * cheap check per request whatever the number of routes, and the sandbox's own router does
 * the rest (404, 405, ids) exactly as CONTRACT B2 says.
 */
export function createHandlers(
  claim: (url: URL) => boolean,
  handle: (request: ReturnType<typeof fromFetchRequest>) => Promise<ApiResponse>,
  options: {
    /**
     * Answer CORS for any origin (default true: in-process answers cross no network). The
     * Node server's `msw` transport turns it off: the server applies its own Origin policy.
     */
    cors?: boolean
    onError?: (error: unknown) => void
  } = {},
): HttpHandler[] {
  const { cors = true, onError } = options
  return [
    http.all(
      ({ request }) => claim(new URL(request.url)),
      async ({ request }) => {
        if (!cors) return toFetchResponse(await handle(fromFetchRequest(request)), onError)
        // happy-dom's fetch checks CORS but sends its preflight without Origin or
        // Access-Control-Request-Method: every OPTIONS answer carries the preflight headers.
        const origin = request.headers.get('origin')
        const options = request.method === 'OPTIONS'
        const headers: Record<string, string> = {}
        if (isPreflight(request.method, request.headers.get('access-control-request-method'))) {
          addCorsHeaders(
            headers,
            origin,
            true,
            true,
            true,
            request.headers.get('access-control-request-headers'),
          )
          // Every answer carries one (B6), a preflight too, as the Node server's does.
          headers['x-request-id'] = requestIdFor(request.headers.get('x-request-id'))
          return respond(null, { status: 204, headers })
        }
        const answer = await handle(fromFetchRequest(request))
        // Under the base path, no route, no override: on to the network (the passthrough option).
        if (answer.passthrough) return passthrough()
        const response = toFetchResponse(answer, onError)
        if (response.type !== 'error') {
          addCorsHeaders(headers, origin, options, true)
          for (const name in headers) response.headers.set(name, headers[name]!)
        }
        return response
      },
    ),
  ]
}
