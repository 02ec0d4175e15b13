import type { IncomingMessage, ServerResponse } from 'node:http'
import { requestIdFor } from '../handlers/pipeline.js'
import { dropped } from './request-log.js'

/** A connect-style middleware, as express and the `cors` package use. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void

/** How much of an unwanted request body is read and dropped before the connection is cut. */
const DISCARD_LIMIT = 16 * 1024 * 1024

/** Resets the connection: what a dropped request (fault injection) looks like to the client. */
export function drop(req: IncomingMessage, res: ServerResponse): void {
  dropped.add(res)
  req.socket.resetAndDestroy()
}

/**
 * After the response, discards a request body nobody read (a 413, a 401 before the body), as
 * Node does for bodies nobody consumed, so the keep-alive connection stays usable.
 */
export function drainAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return
    req.removeAllListeners('data')
    discardBody(req)
  })
}

/**
 * Reads and drops the rest of a request body nobody wants, so the keep-alive connection
 * stays usable; an endless body gets its connection cut.
 */
export function discardBody(req: IncomingMessage): void {
  let discarded = 0
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > DISCARD_LIMIT) req.socket.destroy()
  })
  req.resume()
}

/**
 * For the express frame around MSW's middleware: give every response an `X-Request-Id` (also
 * the ones answered before the handlers, like CORS preflights), turn the handlers'
 * network-error response (status 0) into a connection reset, and drain unread bodies.
 */
export function mswTransport() {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const sent = req.headers['x-request-id']
    const id = requestIdFor(typeof sent === 'string' ? sent : null)
    req.headers['x-request-id'] = id
    res.setHeader('x-request-id', id)
    const appendHeader = res.appendHeader.bind(res)
    res.appendHeader = (name: string, value: string | readonly string[]) =>
      name.toLowerCase() === 'x-request-id' ? res.setHeader(name, value) : appendHeader(name, value)
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
    res.end = ((...args: unknown[]) => {
      if (res.statusCode !== 0) return end(...args)
      drop(req, res)
      return res
    }) as ServerResponse['end']
    drainAfterResponse(req, res)
    next()
  }
}
