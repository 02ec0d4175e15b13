import { ApiError } from '../../contract/api-error.js'
import { failure } from '../../contract/envelope.js'
import type { ApiResponse } from '../../contract/exchange.js'
import { isPending } from '../../contract/exchange.js'
import type { Step } from '../../http/compose.js'
import type { Sandbox } from '../../sandbox/create-sandbox.js'
import { answerOf } from '../../sandbox/create-sandbox.js'
import { answersBusy, fromNodeRequest, HELD_FROM } from '../node-request.js'
import { sendAnswer } from '../respond.js'
import type { Front } from './context.js'

/**
 * Everything else to the sandbox's pipeline (http/pipeline.ts), fed straight from Node's
 * request; an answer made at once is written in the same tick.
 */
export function pipeline(sandbox: Sandbox): Step<Front, void> {
  const answer = answerOf(sandbox)
  const { onUnexpectedError } = sandbox.options
  return {
    name: 'pipeline',
    run(f) {
      const { req, res, frame } = f
      let result: ApiResponse | Promise<ApiResponse>
      try {
        result = answer(fromNodeRequest(req, f.url, f.server.bodies, frame['x-request-id']))
      } catch (error) {
        // Only a throwing onUnexpectedError gets here: answered 500 like any unexpected error.
        result = Promise.reject(error)
      }
      if (!isPending(result)) return sendAnswer(req, res, held(f, result), frame, onUnexpectedError)
      result.then(
        (response) => sendAnswer(req, res, held(f, response), closing(f), onUnexpectedError),
        (error: unknown) => {
          onUnexpectedError(error)
          sendAnswer(req, res, failure(ApiError.of('internalError')), closing(f))
        },
      )
    },
  }
}

/**
 * A large answer counted against the bytes the server holds in memory at once (request bodies,
 * the proxy target's answers) until it is sent or its client went away; past that budget, 429
 * instead (C3, `BodyBudget.holds`).
 */
function held(f: Front, response: ApiResponse): ApiResponse {
  const size = response.body?.length ?? response.bytes?.byteLength ?? 0
  if (size < HELD_FROM) return response
  const bytes = response.body === null ? size : Buffer.byteLength(response.body)
  return f.server.bodies.holds(bytes, f.res) ? response : failure(answersBusy())
}

/**
 * An answer that was still being worked out when the server began to stop closes its
 * connection too (its frame was made before).
 */
function closing(f: Front) {
  return f.server.draining ? { ...f.frame, connection: 'close' } : f.frame
}
