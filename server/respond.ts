import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiResponse } from '../contract/exchange.js'
import { dropped } from './request-log.js'

/** How much of an unwanted request body is read and dropped before the connection is cut. */
const DISCARD_LIMIT = 16 * 1024 * 1024

/** Writes the pipeline's answer to Node's response (or resets the connection when it dropped). */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: ApiResponse): void {
  if (answer.drop) {
    drop(req, res)
    return
  }
  if (res.headersSent || res.destroyed) return
  const headers: Record<string, string | number> = answer.headers
  if (answer.body !== null) headers['content-length'] = Buffer.byteLength(answer.body)
  res.writeHead(answer.status, headers)
  res.end(answer.body ?? undefined)
}

/** Resets the connection: what a dropped request (fault injection) looks like to the client. */
export function drop(req: IncomingMessage, res: ServerResponse): void {
  dropped.add(res)
  req.socket.resetAndDestroy()
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
