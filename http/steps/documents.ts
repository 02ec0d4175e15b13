import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'

/** The sandbox's own documents (`/openapi.json`): answered before anything else of the API. */
export const documents: Step<Context, Answer> = {
  name: 'documents',
  run(c, next) {
    return c.host.documents(c.request, c.request.url.pathname) ?? next(c)
  },
}
