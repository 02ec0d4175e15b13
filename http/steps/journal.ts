import type { ApiResponse } from '../../contract/exchange.js'
import { isPending } from '../../contract/exchange.js'
import type { Step } from '../compose.js'
import { isPreflight } from '../cors-headers.js'
import type { Answer, Context } from '../context.js'
import { toErrorResponse } from './errors.js'

/**
 * The journal (CONTRACT C2), around every step of an API request: the request and its answer,
 * as it was, for `GET /__sandbox/requests` (not a preflight, never the control API's own
 * requests). What a step after it throws becomes the contract's envelope here, so the journal
 * keeps the answer the client got.
 */
export const journal: Step<Context, Answer> = {
  name: 'journal',
  run(c, next) {
    c.at = c.host.now()
    c.started = performance.now()
    let answer: Answer
    try {
      answer = next(c)
    } catch (error) {
      return record(c, toErrorResponse(error, c.host.onUnexpectedError))
    }
    if (!isPending(answer)) return record(c, answer)
    return answer.then(
      (response) => record(c, response),
      (error: unknown) => record(c, toErrorResponse(error, c.host.onUnexpectedError)),
    )
  },
}

function record(c: Context, response: ApiResponse): ApiResponse {
  const { request } = c
  // A CORS preflight is the browser's question, not the app's request.
  if (isPreflight(request.method, request.header('access-control-request-method'))) return response
  response.headers['x-request-id'] = c.requestId
  c.instance.journal.add({
    at: c.at,
    method: request.method,
    path: request.url.pathname,
    apiPath: c.path,
    search: request.url.search,
    durationMs: Math.round((performance.now() - c.started) * 100) / 100,
    body: c.body,
    bodyText: c.bodyText,
    overrideId: c.overrideId,
    nearMiss: c.nearMiss,
    proxied: c.proxied,
    requestHeaders: request.headers?.(),
    scenario: c.instance.scenario.name,
    response,
  })
  return response
}
