import { statusHeaders } from '../../contract/api-error.js'
import type { CodeDefinition } from '../../contract/codes.js'
import { codeOfStatus } from '../../contract/codes.js'
import { JSON_CONTENT_TYPE } from '../../contract/envelope.js'
import { jsonText } from '../../contract/json-text.js'
import type { ApiResponse } from '../../contract/exchange.js'
import { isInterim, pastAscii } from '../../contract/exchange.js'
import {
  headerNameProblem,
  headerValueProblem,
  SERVER_OWNED_HEADERS,
} from '../../contract/headers.js'

import type { OverrideResponse } from './schemas.js'

/**
 * The answer of an override's response (CONTRACT C2); `delayMs` is waited by the caller. A
 * status that always carries a header (401's `WWW-Authenticate`, 405's `Allow`, 429's
 * `Retry-After`) gets it unless the override gives its own. Headers are checked again here
 * (they were at creation): an answer with a header HTTP cannot carry becomes a 500 envelope
 * instead of a crash while writing. A 1xx answers as a drop that keeps its status and headers
 * (`ApiResponse.drop`).
 */
export function overrideAnswer(
  response: OverrideResponse,
  allow: string,
  /** The API's business codes' messages by number: a given `code` without `message` says its own. */
  messages: ReadonlyMap<number, string> = new Map(),
  /** A 409's code and message without a `code` given: the route's own, as `Prefer: code=409`'s. */
  conflict?: CodeDefinition,
): ApiResponse {
  if (response.drop) return { status: 0, headers: {}, body: null, code: null, drop: true }
  const status = response.status!
  const headers: Record<string, string> = {
    ...statusHeaders[status],
    ...(status === 405 ? { allow } : {}),
  }
  let latin1 = false
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const lower = name.toLowerCase()
    if (headerNameProblem(name) || headerValueProblem(value) || SERVER_OWNED_HEADERS.has(lower))
      throw new Error(`override header ${name} cannot be sent`)
    // The server's answers vary by Origin (CORS): an override's own Vary keeps that.
    headers[lower] = lower === 'vary' && !/\borigin\b/i.test(value) ? `${value}, Origin` : value
    if (pastAscii(value)) latin1 = true
  }
  const marks = latin1 ? { latin1Headers: true } : {}
  // A 1xx is no final answer: sent as an interim one, then the connection is closed.
  if (isInterim(status)) return { status, headers, body: null, code: null, drop: true, ...marks }
  // Statuses that never carry content (RFC 9110: 204, 205 Reset Content, 304).
  const noBody = status === 204 || status === 205 || status === 304
  if (response.text !== undefined) {
    return {
      status,
      code: null,
      headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
      body: noBody ? null : response.text,
      ...marks,
    }
  }
  if (response.body !== undefined) {
    return {
      status,
      code: null,
      headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
      body: noBody ? null : (jsonText(response.body) ?? 'null'),
      ...marks,
    }
  }
  const entry = codeOfStatus(status, conflict)
  const code = status < 300 ? 0 : (response.code ?? entry?.code ?? status * 100)
  const message =
    response.message ??
    (status < 300
      ? 'success'
      : response.code !== undefined
        ? (messages.get(response.code) ?? codeOfStatus(status)?.message ?? 'error')
        : (entry?.message ?? 'error'))
  const envelope = { code, message, data: status < 300 ? (response.data ?? null) : null }
  return {
    status,
    code,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: noBody ? null : JSON.stringify(envelope),
    ...marks,
  }
}
