import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { randomUUID } from 'node:crypto'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { ApiError } from '../contract/api-error.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { pastAscii } from '../contract/exchange.js'
import { namedByConnection, SERVER_OWNED_HEADERS } from '../contract/headers.js'
import {
  BODY_LIMIT,
  bodiesBusy,
  declaredOver,
  jsonDepthExceeds,
  jsonOfBody,
  MAX_BODY_KEYS,
  MAX_JSON_DEPTH,
} from '../http/body.js'
import type { Context } from '../http/context.js'
import type { BodyBudget } from './node-request.js'
import type { Exchange, Recorder } from './record.js'
import { flag } from '../sandbox/option-table.js'

/**
 * CONTRACT C4's proxy: a request under the base path that no route and no override answers is
 * sent to the target (the real API) and its answer relayed: status, headers and body as
 * received, minus what belongs to one connection (hop-by-hop headers). The sandbox asks for an
 * uncompressed answer, and decodes one that comes compressed all the same, so the journal and
 * a recording hold the body itself.
 */

/**
 * Headers of one connection (RFC 9110 §7.6.1: the ones a server owns, and the proxy's own
 * credentials), and those the proxy sets itself for the target.
 */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  ...SERVER_OWNED_HEADERS,
  'proxy-authenticate',
  'proxy-authorization',
  'host',
  'accept-encoding',
])

/** The sandbox's own request headers: they steer the sandbox, not the real API. */
const SANDBOX_HEADERS = /^x-sandbox-/

export interface ProxyOptions {
  /** The target's base URL, without a trailing slash (`https://staging.example.com/api`). */
  target: string
  /** Milliseconds the target has to answer in full (504 / 50400 past it). */
  timeoutMs: number
  /** The largest answer relayed, in bytes (502 / 50200 past it): answers are held in memory. */
  maxBytes: number
  /** Appends each exchange to `--record`'s file. */
  recorder?: Recorder | null
  /**
   * Bytes of bodies the server holds at once, shared with request bodies: an answer that does
   * not fit is refused 429 / 42900 (many big answers at once must not exhaust the heap).
   */
  budget?: BodyBudget
}

/** The pipeline's `unmatched` step for a Node server with `--proxy`. */
export function proxyTo(options: ProxyOptions): (c: Context) => Promise<ApiResponse> {
  const base = new URL(options.target)
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest
  const basePath = base.pathname.replace(/\/$/, '')
  // This proxy's name in `Via` (RFC 9110 section 7.6.3, which a proxy adds to what it forwards):
  // a request that comes back carrying it went round a loop (a target that is this sandbox, or
  // one proxying back to it), and is not sent round again, where each turn held a socket until
  // the process ran out of them.
  const name = `shop-sandbox-${randomUUID().slice(0, 8)}`
  const through = (via: string | null) => (via === null ? `1.1 ${name}` : `${via}, 1.1 ${name}`)
  return async (c) => {
    const { request } = c
    const via = request.header('via')
    if (via !== null && viaNames(via).includes(name)) {
      // Journaled as what it is, a request refused, not one forwarded.
      c.proxied = false
      // The loop's names in the answer's Via: no turn of the loop that relays it records it.
      throw ApiError.of(
        'badGateway',
        `the proxy target ${options.target} leads back to this sandbox (a loop): give ${flag('proxy')} the real API's address`,
        { via: through(via) },
      )
    }
    const url = new URL(base.href)
    url.pathname = `${basePath}${c.path === '/' && basePath !== '' ? '' : c.path}`
    url.search = request.url.search
    let body: Uint8Array | undefined
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      if (declaredOver(request, BODY_LIMIT)) throw ApiError.of('payloadTooLarge')
      const read = await c.readBody(BODY_LIMIT)
      if (read === 'too-large') throw ApiError.of('payloadTooLarge')
      if (read === 'busy') throw bodiesBusy()
      body = read
      // A JSON body is journaled as an API request's is (any other is forwarded, not shown).
      if (body.byteLength > 0)
        try {
          await jsonOfBody(body, request.header('content-type'), {
            seen: c,
            maxKeys: MAX_BODY_KEYS,
          })
        } catch {
          // Not JSON: forwarded all the same.
        }
    }
    const headers = forwardedHeaders(request)
    headers.via = through(via)
    if (body && body.byteLength > 0) headers['content-length'] = String(body.byteLength)
    const held = { bytes: 0 }
    try {
      const answer = await exchange(send, url, request.method, headers, body, options, held)
      const response = relayed(answer, options.target)
      const looped = viaNames(String(answer.headers.via ?? '')).includes(name)
      // What the client was given is recorded: the headers as relayed (those of one connection
      // left out in one place), copied before the pipeline adds its own.
      if (!looped)
        options.recorder?.add(request.method, c.path, request.url.searchParams, headers, {
          ...answer,
          headers: { ...response.headers },
        })
      return response
    } finally {
      options.budget?.release(held.bytes)
    }
  }
}

/** The names in a `Via` (`1.0 fred, 1.1 p.example (Apache/1.1)` → `fred`, `p.example`). */
function viaNames(via: string): string[] {
  return via.split(',').map((hop) => hop.trim().split(/[ \t]+/)[1] ?? '')
}

/**
 * The request's headers for the target: hop-by-hop and the sandbox's own left out. Its
 * `Content-Encoding` goes with it: the body is forwarded as it came (gzip stays gzip).
 */
function forwardedHeaders(request: ApiRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  const given = request.headers?.() ?? {}
  const connection = namedByConnection(given.connection)
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase()
    if (value === undefined || connection.includes(lower)) continue
    if (HOP_BY_HOP.has(lower) && lower !== 'content-encoding') continue
    if (SANDBOX_HEADERS.test(lower)) continue
    headers[lower] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  headers['accept-encoding'] = 'identity'
  return headers
}

/**
 * The answer as the recorder and the relay read it: its text (null when not UTF-8), and its JSON
 * parsed on first use only: relayed, a 1.5 MB answer of 100,000 keys was parsed for no one, ~90
 * ms of the loop. JSON nested deeper than {@link MAX_JSON_DEPTH} levels is not parsed (`deep`),
 * as a request body is not: 6 MB of nested lists held the loop 1.3 s in `JSON.parse` and its
 * collections, for the business code the journal shows.
 */
function readBody(status: number, headers: IncomingHttpHeaders, body: Buffer): Exchange {
  let text: string | null = null
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body)
  } catch {
    return { status, headers, body, text, json: undefined, deep: false }
  }
  if (!/json/i.test(headers['content-type'] ?? ''))
    return { status, headers, body, text, json: undefined, deep: false }
  let json: unknown
  let deep: boolean | undefined
  const read = () => {
    if (deep !== undefined) return
    deep = jsonDepthExceeds(text!, MAX_JSON_DEPTH)
    if (deep) return
    try {
      json = JSON.parse(text!)
    } catch {
      // Declared JSON, but not: text.
    }
  }
  return {
    status,
    headers,
    body,
    text,
    get json() {
      read()
      return json
    },
    get deep() {
      read()
      return deep!
    },
  }
}

function exchange(
  send: typeof httpRequest,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  options: ProxyOptions,
  /** What this answer holds of the budget (released by the caller when it is relayed). */
  held: { bytes: number },
): Promise<Exchange> {
  const target = options.target
  const take = (bytes: number) => {
    if (options.budget && !options.budget.take(bytes)) return false
    held.bytes += bytes
    return true
  }
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (error: ApiError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outgoing.destroy()
      reject(error)
    }
    const timer = setTimeout(
      () =>
        fail(
          ApiError.of(
            'gatewayTimeout',
            `the proxy target ${target} did not answer within ${options.timeoutMs} ms (${flag('proxyTimeout')})`,
          ),
        ),
      options.timeoutMs,
    )
    const outgoing = send(url, { method, headers }, (incoming: IncomingMessage) => {
      const chunks: Buffer[] = []
      let size = 0
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > options.maxBytes) fail(tooBig(target, options.maxBytes))
        else if (!take(chunk.length)) fail(busy())
        else chunks.push(chunk)
      })
      incoming.on('error', (error: NodeJS.ErrnoException) => fail(unreachable(target, error)))
      incoming.on('end', () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        let body: Buffer
        try {
          body = decoded(
            Buffer.concat(chunks),
            incoming.headers['content-encoding'],
            options.maxBytes,
          )
        } catch (error) {
          reject(
            (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
              ? tooBig(target, options.maxBytes)
              : ApiError.of(
                  'badGateway',
                  `the proxy target ${target} sent a body its Content-Encoding does not describe`,
                ),
          )
          return
        }
        // Decoded, the answer holds more than came in: that too within the budget.
        if (body.byteLength > size && !take(body.byteLength - size)) {
          reject(busy())
          return
        }
        resolve(readBody(incoming.statusCode ?? 502, incoming.headers, body))
      })
    })
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(unreachable(target, error)))
    outgoing.end(body && body.byteLength > 0 ? body : undefined)
  })
}

function tooBig(target: string, maxBytes: number): ApiError {
  return ApiError.of(
    'badGateway',
    `the proxy target ${target} answered more than ${maxBytes} bytes (${flag('maxDocumentBytes')})`,
  )
}

function busy(): ApiError {
  return ApiError.of('rateLimited', 'too many large answers in flight; retry shortly')
}

function unreachable(target: string, error: NodeJS.ErrnoException): ApiError {
  return ApiError.of(
    'badGateway',
    `the proxy target ${target} cannot be reached: ${error.code ?? error.message}`,
  )
}

/**
 * The body without its content coding (asked for `identity`, but a server may not listen),
 * decoded to at most `maxBytes` (a small gzip can stand for gigabytes: ERR_BUFFER_TOO_LARGE).
 */
function decoded(body: Buffer, coding: string | undefined, maxBytes: number): Buffer {
  const limit = { maxOutputLength: Math.max(1, maxBytes) }
  switch (coding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return body
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, limit)
    case 'deflate':
      return inflateSync(body, limit)
    case 'br':
      return brotliDecompressSync(body, limit)
    default:
      throw new Error(`unknown content coding ${coding}`)
  }
}

/** The target's answer as the pipeline's: UTF-8 text as `body`, anything else as `bytes`. */
function relayed(answer: Exchange, target: string): ApiResponse {
  // A status HTTP does not define (600-999, which Node reads) is no answer a client can use.
  if (answer.status < 100 || answer.status > 599)
    throw ApiError.of(
      'badGateway',
      `the proxy target ${target} answered status ${answer.status}, which HTTP does not define`,
    )
  const headers: Record<string, string> = {}
  let setCookies: readonly string[] | undefined
  let latin1 = false
  const connection = namedByConnection(answer.headers.connection)
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connection.includes(name)) continue
    // CORS is the sandbox's own (CONTRACT C3): the target's would open the answer to its origins.
    if (name.startsWith('access-control-')) continue
    // Node gives Set-Cookie as a list (joined, it would be one broken cookie): each is relayed.
    if (name === 'set-cookie') {
      setCookies = Array.isArray(value) ? value : [String(value)]
      if (setCookies.some(pastAscii)) latin1 = true
      continue
    }
    const joined = Array.isArray(value) ? value.join(', ') : value
    // The sandbox's answers vary by Origin (CORS): the target's Vary keeps that.
    const text = name === 'vary' && !/\borigin\b/i.test(joined) ? `${joined}, Origin` : joined
    headers[name] = text
    if (pastAscii(text)) latin1 = true
  }
  const { text, json } = answer
  // The business code, when the answer is an envelope (the journal shows it).
  const code = (json as { code?: unknown } | null)?.code
  const noBody = answer.status === 204 || answer.status === 304 || answer.body.byteLength === 0
  return {
    status: answer.status,
    headers,
    code: typeof code === 'number' ? code : null,
    body: noBody ? null : text,
    ...(noBody || text !== null ? {} : { bytes: new Uint8Array(answer.body) }),
    ...(setCookies ? { setCookies } : {}),
    ...(latin1 ? { latin1Headers: true } : {}),
  }
}
