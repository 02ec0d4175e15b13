import type { ApiRequest, ApiResponse } from '../../contract/exchange.js'
import type { SandboxInstance } from '../../state/instance.js'
import type { Seen } from './seen.js'

/**
 * Step 9, the journal (CONTRACT C2): every API request of a sandbox and its answer, as it was
 * (not a preflight, never the control API's own requests).
 */
export function record(
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
  response: ApiResponse,
): ApiResponse {
  if (request.method !== 'OPTIONS') {
    response.headers['x-request-id'] = seen.requestId
    instance.journal.add({
      at: seen.at,
      method: request.method,
      path: seen.pathname,
      apiPath: seen.path,
      search: request.url.search,
      durationMs: Math.round((performance.now() - seen.started) * 100) / 100,
      body: seen.body,
      bodyText: seen.bodyText,
      overrideId: seen.overrideId,
      nearMiss: seen.nearMiss,
      proxied: seen.proxied,
      requestHeaders: request.headers?.(),
      response,
    })
  }
  return response
}
