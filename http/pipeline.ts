import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { isPending } from '../contract/exchange.js'
import type { Catalog } from '../resources/catalog.js'
import type { SandboxInstance } from '../state/instance.js'
import type { ApiRoutes } from './routes.js'
import { noRoute, toErrorResponse } from './steps/errors.js'
import { delayOf, sleep } from './steps/faults.js'
import { record } from './steps/journal.js'
import { finish, requestIdFor } from './steps/request-id.js'
import { route } from './steps/route.js'
import { sandboxId } from './steps/sandbox.js'
import type { Seen } from './steps/seen.js'
import { seenOf } from './steps/seen.js'

export { requestIdFor } from './steps/request-id.js'
export { WRITE_METHODS } from './steps/run.js'

/**
 * One request, front to back. Each step is a file of `http/steps/`, and this is their order
 * (CONTRACT B4's checks, C1's controls, C2's overrides):
 *
 * | step | file | what it does |
 * | --- | --- | --- |
 * | 1 request id | request-id.ts | the client's `X-Request-Id` or a new one, on every answer |
 * | 2 sandbox | sandbox.ts | `X-Sandbox-Id` picks the caller's copy of the data (the control API's too) |
 * | 3 delay | faults.ts | `X-Sandbox-Delay`, else the settings' delay |
 * | 4 faults | faults.ts | an injected drop, 500 or 503 at the settings' rates |
 * | 5 route, auth | route.ts, ../router.ts, ../auth.ts | 404 / 405 / preflight, then 401 (a forced `Prefer: code=` answer next) |
 * | 6 permission | permissions.ts | 403 naming the rule (`permissions`, `adminOnly` of the definitions) |
 * | 7 overrides | overrides.ts | an override answers instead (stubs without a token), near misses named; a path the API lacks goes to the proxy target when there is one |
 * | 8 run | run.ts | path ids and query (400), the operation (body, 404, 422, 409), durability (503) |
 * | 9 journal | journal.ts | the request and its answer, for `GET /__sandbox/requests` |
 *
 * Failures of any step become the contract's envelope in one place (errors.ts). Answers
 * synchronously when nothing on the way waits (no body, delay or override): most reads; a
 * promise only when something does, so the Node server writes most answers in the same tick.
 * The Node server's own steps come before: the Host and Origin checks and CORS (server/guard.ts,
 * server/cors.ts, http/cors-headers.ts).
 */
export function answer(
  host: PipelineHost,
  request: ApiRequest,
): ApiResponse | Promise<ApiResponse> {
  const requestId = request.requestId ?? requestIdFor(request.header('x-request-id'))
  let result: ApiResponse | Promise<ApiResponse>
  try {
    result = dispatch(host, request, requestId)
  } catch (error) {
    result = toErrorResponse(error, host.onUnexpectedError)
  }
  // A waiting answer was finished where it was made, in its one `then`.
  return isPending(result) ? result : finish(request, requestId, result)
}

/** What the pipeline needs from the sandbox that runs it. */
export interface PipelineHost {
  /** Where resources live: '' (the root) or e.g. '/api'. */
  readonly basePath: string
  /** The API's resources and the routes compiled from them. */
  readonly catalog: Catalog
  readonly routes: ApiRoutes
  /** The sandbox for an `X-Sandbox-Id` (null: the default one), created on first use. */
  instanceFor(name: string | null): SandboxInstance
  /** After each request to a sandbox: keeps the named sandboxes within their memory budget. */
  settle(instance: SandboxInstance): void
  /** Milliseconds since the epoch (a settable clock for tests). */
  now(): number
  /** Handles `/__sandbox/...` (the control API), or null when it is off. */
  control(request: ApiRequest, path: string, instance: SandboxInstance): Promise<ApiResponse> | null
  /** Handles the sandbox's own documents (`/openapi.json`), or null for other paths. */
  documents(request: ApiRequest, path: string): ApiResponse | null
  /** Called with anything unexpected thrown while handling a request (it answers 500). */
  onUnexpectedError(error: unknown): void
  /**
   * What answers a request under the base path that no route and no override answers
   * (CONTRACT C4): the Node server's proxy (`--proxy`), MSW's passthrough; unset: 404.
   */
  unmatched?: (request: ApiRequest, seen: Seen) => ApiResponse | Promise<ApiResponse>
}

/** Where the control API lives (CONTRACT C1), under no base path. */
export const CONTROL_PREFIX = '/__sandbox'

/** Step 2: the sandbox's own documents, the control API, or the API under the base path. */
function dispatch(
  host: PipelineHost,
  request: ApiRequest,
  requestId: string,
): ApiResponse | Promise<ApiResponse> {
  const { pathname } = request.url
  const documents = host.documents(request, pathname)
  if (documents) return documents
  const isControl = pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`)
  const { basePath } = host
  const underBase = basePath === '' || pathname === basePath || pathname.startsWith(`${basePath}/`)
  if (!isControl && !underBase) throw noRoute(request)
  const instance = host.instanceFor(sandboxId(request))
  let result: ApiResponse | Promise<ApiResponse>
  try {
    if (isControl) {
      const answer = host.control(request, pathname.slice(CONTROL_PREFIX.length) || '/', instance)
      if (!answer) throw noRoute(request)
      return answer.then(
        (response) => completed(host, instance, request, requestId, response),
        (error: unknown) =>
          completed(
            host,
            instance,
            request,
            requestId,
            toErrorResponse(error, host.onUnexpectedError),
          ),
      )
    }
    result = journaled(
      host,
      instance,
      request,
      seenOf(
        host.now(),
        performance.now(),
        pathname,
        pathname.slice(basePath.length) || '/',
        requestId,
      ),
    )
  } catch (error) {
    host.settle(instance)
    throw error
  }
  if (isPending(result)) return result
  host.settle(instance)
  return result
}

/**
 * Steps 3 to 9 for an API request: its delay, the rest, and its journal entry. An answer that
 * waited is completed in its one `then` (the sandbox settled, the answer finished): no `then`
 * per step, and no closure at all for an answer made at once (most reads).
 */
function journaled(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
): ApiResponse | Promise<ApiResponse> {
  let result: ApiResponse | Promise<ApiResponse>
  try {
    const delay = delayOf(request, instance)
    result =
      delay > 0
        ? sleep(delay).then(() => route(host, instance, request, seen))
        : route(host, instance, request, seen)
  } catch (error) {
    result = toErrorResponse(error, host.onUnexpectedError)
  }
  if (!isPending(result)) return record(instance, request, seen, result)
  return result.then(
    (response) =>
      completed(host, instance, request, seen.requestId, record(instance, request, seen, response)),
    (error: unknown) =>
      completed(
        host,
        instance,
        request,
        seen.requestId,
        record(instance, request, seen, toErrorResponse(error, host.onUnexpectedError)),
      ),
  )
}

/** A waiting answer's last steps: the sandbox settled, the answer finished. */
function completed(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  requestId: string,
  response: ApiResponse,
): ApiResponse {
  host.settle(instance)
  return finish(request, requestId, response)
}
