import type { HttpHandler } from 'msw'
import { HttpResponse, http } from 'msw'
import type { ApiResponse } from '../contract/exchange.js'
import { openCorsHeaders } from '../http/cors-headers.js'
import { fromFetchRequest } from '../contract/exchange.js'

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

/** A Fetch API `Response` from the pipeline's answer (a network error when it dropped). */
export function toFetchResponse(response: ApiResponse): Response {
  if (response.drop) return HttpResponse.error()
  return new HttpResponse(response.body, { status: response.status, headers: response.headers })
}

/**
 * The sandbox as MSW request handlers: one handler with a custom predicate, so MSW does one
 * cheap check per request whatever the number of routes, and the sandbox's own router does
 * the rest (404, 405, ids) exactly as CONTRACT B2 says.
 */
export function createHandlers(
  claim: (url: URL) => boolean,
  handle: (request: ReturnType<typeof fromFetchRequest>) => Promise<ApiResponse>,
): HttpHandler[] {
  return [
    http.all(
      ({ request }) => claim(new URL(request.url)),
      async ({ request }) => {
        // happy-dom's fetch checks CORS but sends its preflight without Origin or
        // Access-Control-Request-Method: every OPTIONS answer carries the preflight headers.
        const origin = request.headers.get('origin') ?? '*'
        const options = request.method === 'OPTIONS'
        if (options && request.headers.has('access-control-request-method'))
          return new HttpResponse(null, { status: 204, headers: openCorsHeaders(origin, true) })
        const response = toFetchResponse(await handle(fromFetchRequest(request)))
        if (response.type !== 'error') {
          for (const [name, value] of Object.entries(openCorsHeaders(origin, options)))
            response.headers.set(name, value)
        }
        return response
      },
    ),
  ]
}
