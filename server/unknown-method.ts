import { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** The longest request head read here: Node's own default bound of a request's head. */
const MAX_HEAD_BYTES = 16 * 1024

/** A request line: a method token (at most 20 characters, as the pipeline names one), a target, HTTP/1.x. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}) ([\x21-\x7e]+) HTTP\/1\.([01])\r\n/

/** A header line's name, up to its colon. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Characters no header value holds (Node's parser refuses them too). */
const NOT_IN_A_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/

/**
 * A request whose method Node's HTTP parser does not know (`FOO`, `PURGE`…) as Node's own
 * request (its response: {@link bodilessExchange}), or null. Node refuses such a method before any listener sees it
 * (`HPE_INVALID_METHOD`), so it was a bare 400 where CONTRACT B2 says 405 with `Allow`; read
 * here from the bytes Node hands over with the error, it goes through the front and the
 * pipeline as any request does (the Host check, CORS, the journal, 405 on a route, 404
 * elsewhere), on a connection closed after its answer. Only a head that came whole in those
 * bytes, within Node's 16 KiB, with headers HTTP allows, is read; a body is not (none is
 * needed to refuse the method), and anything else stays the 400 it was. Linear in the bytes.
 */
export function unknownMethodRequest(
  error: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: unknown },
  socket: Duplex,
): IncomingMessage | null {
  if (error.code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(error.rawPacket)) return null
  // The packet may hold requests before this one (pipelined): this one starts on the line where
  // the parser stopped. Read from the packet's start, the one before was answered again.
  const stopped = typeof error.bytesParsed === 'number' ? error.bytesParsed : 0
  // (A negative offset would count from the end.)
  const start = stopped > 0 ? error.rawPacket.lastIndexOf(10, stopped - 1) + 1 : 0
  const packet = error.rawPacket.subarray(start, start + MAX_HEAD_BYTES + 4).toString('latin1')
  const end = packet.indexOf('\r\n\r\n')
  const line = end < 0 ? null : REQUEST_LINE.exec(packet)
  if (!line) return null
  const headers: Record<string, string> = {}
  const rawHeaders: string[] = []
  const head = packet.slice(line[0].length, end)
  for (const text of head === '' ? [] : head.split('\r\n')) {
    const colon = text.indexOf(':')
    const name = text.slice(0, colon)
    const value = text.slice(colon + 1).trim()
    if (colon <= 0 || !HEADER_NAME.test(name) || NOT_IN_A_VALUE.test(value)) return null
    rawHeaders.push(name, value)
    const key = name.toLowerCase()
    // A header sent twice reads `a, b`, as the server's own parser is told to (joinDuplicateHeaders).
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value
  }
  const req = new IncomingMessage(socket as Socket)
  req.url = line[2]!
  req.httpVersionMajor = 1
  req.httpVersionMinor = Number(line[3])
  req.httpVersion = `1.${line[3]}`
  req.headers = headers
  req.rawHeaders = rawHeaders
  // As sent: methods are case-sensitive (RFC 9110), so `delete` is no DELETE and gets 405.
  req.method = line[1]!
  return req
}

/**
 * A request read outside Node's flow (an unknown method, a `CONNECT`) as a request without a
 * body and its response on `socket`, answered once on a connection closed after it: whatever
 * follows its head is not read as HTTP.
 */
export function bodilessExchange(
  req: IncomingMessage,
  socket: Duplex,
): { req: IncomingMessage; res: ServerResponse } {
  if (!req.complete) {
    req.complete = true
    req.push(null)
  }
  const res = new ServerResponse(req)
  res.shouldKeepAlive = false
  res.assignSocket(socket as Socket)
  return { req, res }
}
