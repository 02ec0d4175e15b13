import type { NextFunction, Request, Response } from 'express'

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/

/**
 * Transport concerns the handlers cannot see: give every response an `X-Request-Id` (also
 * the ones answered before the handlers, like CORS preflights), and turn the handlers'
 * network-error response (a dropped connection) into a socket reset.
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
    next()
  }
}
