import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { ApiError } from '../contract/api-error.js'
import { failure } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import { isInterim } from '../contract/exchange.js'
import { dropped } from './request-log.js'
import { givenBack } from '../db/progress.js'

/** How much of an unwanted request body is read and dropped before the connection is cut. */
const DISCARD_LIMIT = 16 * 1024 * 1024

/** Headers every answer of a request carries (its id, CORS), set before the answer is known. */
export type FrameHeaders = Readonly<Record<string, string>>

/**
 * Writes the pipeline's answer to Node's response, after the request's `frame` headers (or
 * drops the connection, see {@link drop}; after a 1xx, {@link interim}). All headers go in one
 * `writeHead`.
 */
export function sendAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: ApiResponse,
  frame: FrameHeaders = {},
  onError: (error: unknown) => void = (error) =>
    console.error('[shop-sandbox] cannot write an answer:', error),
): void {
  if (answer.drop) {
    if (isInterim(answer.status) && req.httpVersionMinor > 0)
      interim(req, res, answer, frame, onError)
    else drop(req, res)
    return
  }
  if (res.headersSent || res.destroyed) return
  // Added in place: building a spread copy here measured slower per request than the work it saves.
  const headers: Record<string, string | number | string[]> = answer.headers
  for (const name in frame) headers[name] ??= frame[name]!
  if (answer.setCookies) headers['set-cookie'] = [...answer.setCookies]
  if (answer.body !== null) headers['content-length'] = Buffer.byteLength(answer.body)
  else if (answer.bytes) headers['content-length'] = answer.bytes.byteLength
  // 205 has no content, and Node would frame it as a chunked body: zero, said outright.
  else if (answer.status === 205) headers['content-length'] = 0
  try {
    res.writeHead(answer.status, headers)
  } catch (error) {
    // The last resort (answers are checked where they are made): an answer Node refuses to
    // write (a header it cannot carry, a status out of range) is a logged 500, never a crash.
    onError(error)
    const body = failure(ApiError.of('internalError')).body!
    res.writeHead(500, {
      ...frame,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    res.end(body)
    return
  }
  // A string body is written together with the headers, in its encoding (UTF-8): headers with
  // Latin-1 characters go out first, as Latin-1, beside a body given as bytes.
  // A proxied answer that is not text (only those carry bytes, and no body).
  if (answer.body === null && answer.bytes) {
    res.end(answer.bytes)
    return
  }
  if (answer.body !== null && answer.body.length > PIECE && req.method !== 'HEAD') {
    void writeInPieces(res, answer.body)
    return
  }
  res.end(
    answer.body !== null && answer.latin1Headers
      ? Buffer.from(answer.body)
      : (answer.body ?? undefined),
  )
}

/** Characters of a large answer written at a time (C3: ~1-3 ms of encoding each). */
const PIECE = 1024 * 1024

/**
 * Writes a large text a piece at a time, giving the event loop back between pieces (waiting for
 * the client to take them when it is slow): a data document of 52 MB was encoded and copied in
 * one piece of ~130 ms. A piece never ends between the two halves of a surrogate pair.
 */
async function writeInPieces(res: ServerResponse, text: string): Promise<void> {
  for (let at = 0; at < text.length && !res.destroyed;) {
    let end = Math.min(at + PIECE, text.length)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--
    const taken = res.write(text.slice(at, end))
    at = end
    await (taken ? givenBack() : drained(res))
  }
  if (!res.destroyed) res.end()
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/** Resolves when the response can take more, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/**
 * Sends one of the server's own pages or files (the landing page, the console, `/docs`): 200
 * with its type and length after the frame's headers, and no body for HEAD. `headers` adds the
 * page's own (its Content-Security-Policy); pages default to `no-store`.
 */
export function sendPage(
  req: IncomingMessage,
  res: ServerResponse,
  frame: FrameHeaders,
  type: string,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(200, {
    ...frame,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/** Sets the frame's headers on a response another writer (a page, MSW) will complete. */
export function setFrame(res: ServerResponse, frame: FrameHeaders): void {
  for (const [name, value] of Object.entries(frame)) res.setHeader(name, value)
}

/**
 * An override's 1xx: sent as the interim answer it is, in its turn on the connection (Node
 * keeps pipelined answers in order), then the connection is closed, as no final answer follows.
 * HTTP/1.0 has no 1xx (RFC 9110 §15.2): that client's connection is dropped.
 */
function interim(
  req: IncomingMessage,
  res: ServerResponse,
  answer: ApiResponse,
  frame: FrameHeaders,
  onError: (error: unknown) => void,
): void {
  if (res.headersSent || res.destroyed) return
  try {
    res.writeHead(answer.status, { ...frame, ...answer.headers, connection: 'close' })
  } catch (error) {
    // The last resort, as for a final answer (headers are checked where they are made).
    onError(error)
    return drop(req, res)
  }
  res.end()
}

/**
 * Resets the connection: what a dropped request (fault injection) looks like to the client. A
 * request pipelined behind others waits for its turn (Node gives it the socket once the answer
 * before it is out). Where answers went out on the connection before, their last bytes may still
 * be on their way (a reset discards what the client has not read: 3 MB of an 8.5 MB document
 * were lost): the connection is closed after them instead, and the client sees it end without
 * an answer, as a network error all the same.
 */
export function drop(req: IncomingMessage, res: ServerResponse): void {
  dropped.add(res)
  const socket = req.socket
  const cut = () => (socket.bytesWritten > 0 ? closeWith(socket, '') : socket.resetAndDestroy())
  if (res.socket) cut()
  else res.once('socket', cut)
}

/** How long a connection answered outside HTTP's flow stays open for its client to read and close. */
const CLOSE_GRACE_MS = 1000

/**
 * Sends the last bytes of a connection and closes it. The server keeps half-open
 * connections (server.ts, `httpAllowHalfOpen`): ended, a socket whose client never closes its
 * side would stay, a file descriptor each, for good (a thousand silent clients after their 408s
 * held a thousand; enough of them and no one could connect). So it is destroyed a moment after,
 * unless the client closed first.
 */
export function closeWith(socket: Duplex, text: string): void {
  socket.end(text)
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
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

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text for HTML, every character that could end a text node or an attribute escaped. */
export function html(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char]!)
}
