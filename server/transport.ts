import type { NextFunction, Request, Response } from 'express'

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/

/** How much of an unread request body is discarded after the response before the connection is cut. */
const DRAIN_LIMIT = 16 * 1024 * 1024

/**
 * Transport concerns the handlers cannot see: give every response an `X-Request-Id` (also
 * the ones answered before the handlers, like CORS preflights); turn the handlers'
 * network-error response (a dropped connection) into a socket reset; and discard a request
 * body left unread (a 413, a 401 before the body) so the keep-alive connection stays usable.
 */
export function transport() {
  return (req: Request, res: Response, next: NextFunction) => {
    const sent = req.headers['x-request-id']
    const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : crypto.randomUUID()
    req.headers['x-request-id'] = id
    res.setHeader('x-request-id', id)
    const appendHeader = res.appendHeader.bind(res)
    res.appendHeader = (name: string, value: string | readonly string[]) =>
      name.toLowerCase() === 'x-request-id' ? res.setHeader(name, value) : appendHeader(name, value)
    const end = res.end.bind(res) as (...args: unknown[]) => Response
    res.end = ((...args: unknown[]) => {
      if (res.statusCode === 0) {
        res.locals.dropped = true
        req.socket.resetAndDestroy()
        return res
      }
      return end(...args)
    }) as Response['end']
    res.once('finish', () => {
      if (!req.complete) drain(req)
    })
    next()
  }
}

/** Reads and drops the rest of a request body, as Node does for bodies nobody consumed. */
function drain(req: Request): void {
  let drained = 0
  req.removeAllListeners('data')
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_LIMIT) req.socket.destroy()
  })
  req.resume()
}
