import type { ApiRequest } from '../contract/exchange.js'
import { compose } from './compose.js'
import type { Answer, PipelineHost } from './context.js'
import { Context } from './context.js'
import { authenticate } from './steps/authenticate.js'
import { authorize } from './steps/authorize.js'
import { basePath } from './steps/base-path.js'
import { control } from './steps/control.js'
import { delay } from './steps/delay.js'
import { documents } from './steps/documents.js'
import { noRoute } from './steps/errors.js'
import { fault } from './steps/fault.js'
import { journal } from './steps/journal.js'
import { match } from './steps/match.js'
import { operate } from './steps/operate.js'
import { override } from './steps/override.js'
import { prefer } from './steps/prefer.js'
import { requestId } from './steps/request-id.js'
import { sandbox } from './steps/sandbox.js'

export { CONTROL_PREFIX, isControlPath } from './context.js'
export type { Answer, PipelineHost } from './context.js'
export { requestIdFor } from './steps/request-id.js'
export { WRITE_METHODS } from './steps/operate.js'

/**
 * One request, front to back: the list of steps, in order (CONTRACT B4's checks, C1's controls,
 * C2's overrides). Each is one file of `http/steps/` and one job; `compose` runs them, each
 * handing the request on or answering it. What they share is the request's `Context`.
 */
export const steps = [
  requestId, // the client's X-Request-Id or a new one on every answer; errors become envelopes
  sandbox, // X-Sandbox-Id picks the caller's copy of the data (the control API's too)
  documents, // /openapi.json
  control, // /__sandbox/… : the control API (never journaled)
  basePath, // the API lives under the base path: 404 elsewhere
  journal, // the request and its answer, for GET /__sandbox/requests
  delay, // X-Sandbox-Delay, else the settings' delay
  match, // the route and its operation; a preflight's 204
  authenticate, // 401 without a valid token (where one is needed)
  authorize, // 403 naming the rule
  override, // an override answers instead (stubs without a token): before anything else (C2)
  prefer, // Prefer: return=representation; Prefer: code= answers that status
  fault, // an injected drop, 500 or 503 at the settings' rates, for an operation
  operate, // 404 / 405 / the proxy, or the operation: ids and query (400), body, 404, 422, 409, durability
] as const

const run = compose<Context, Answer>(steps, (c) => {
  throw noRoute(c.request)
})

/**
 * Answers a request: synchronously when nothing on the way waits (no body, delay or override:
 * most reads), a promise only when something does, so the Node server writes most answers in
 * the same tick.
 */
export function answer(host: PipelineHost, request: ApiRequest): Answer {
  return run(new Context(host, request))
}
