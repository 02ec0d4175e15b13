import type { ApiError } from '../../contract/api-error.js'
import { failure } from '../../contract/envelope.js'
import { discardBody, sendAnswer } from '../respond.js'
import type { Front } from './context.js'

/** Answers a refused request (403) without reading its body, dropped once the answer is out. */
export function refuse(f: Front, error: ApiError): void {
  f.res.once('finish', () => {
    if (!f.req.complete) discardBody(f.req)
  })
  sendAnswer(f.req, f.res, failure(error), f.frame)
}
