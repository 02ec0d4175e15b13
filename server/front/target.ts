import { ApiError } from '../../contract/api-error.js'
import { failure } from '../../contract/envelope.js'
import type { Step } from '../../http/compose.js'
import { hasDotSegment, requestUrl } from '../node-request.js'
import { sendAnswer } from '../respond.js'
import type { Front } from './context.js'

/**
 * The request target as a URL: 400 for one that is none, or that holds a percent-encoded dot
 * segment (`/__sandbox/overrides/%2e%2e` would be resolved away by the URL parser and reach
 * another route, `DELETE /__sandbox/`, a reset): refused as sent.
 */
export const target: Step<Front, void> = {
  name: 'target',
  run(f, next) {
    const url = requestUrl(f.req.url)
    if (url && !hasDotSegment(f.req.url ?? '/')) {
      f.url = url
      return next(f)
    }
    const error = ApiError.of(
      'invalidParameter',
      url
        ? 'the request target has a percent-encoded . or .. segment (%2e); send the path it stands for'
        : 'the request target is not a valid path',
    )
    sendAnswer(f.req, f.res, failure(error), f.frame)
  },
}
