import { ApiError } from '../../contract/api-error.js'
import { failure } from '../../contract/envelope.js'
import type { Step } from '../../http/compose.js'
import { sendAnswer, setFrame } from '../respond.js'
import type { Front } from './context.js'

/** Methods a Fetch API `Request` cannot be made with: MSW never sees them, the pipeline answers. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

/**
 * `--transport msw`: a request the sandbox's MSW handler claims goes through msw's own
 * `getResponse`; what MSW leaves (a passthrough) goes on to the pipeline.
 */
export const msw: Step<Front, void> = {
  name: 'msw',
  run(f, next) {
    const { server, req, res, frame } = f
    if (
      server.msw === null ||
      FORBIDDEN_METHODS.has(req.method ?? '') ||
      (req.url ?? '').startsWith('//') ||
      !server.sandbox.claims(f.url)
    )
      return next(f)
    setFrame(res, frame)
    server.msw(req, res, f.url, (error) => {
      if (error === undefined) return next(f)
      server.sandbox.options.onUnexpectedError(error)
      if (res.headersSent) res.destroy()
      else sendAnswer(req, res, failure(ApiError.of('internalError')), frame)
    })
  },
}
