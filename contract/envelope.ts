import type { ApiError } from './api-error.js'
import { codes } from './codes.js'
import type { ApiResponse } from './exchange.js'
import { jsonText } from './json-text.js'

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** The success envelope `{ code: 0, message: 'success', data }` with its status. */
export function success(
  data: unknown,
  status = 200,
  headers?: Record<string, string>,
): ApiResponse {
  return succeeded(data, status, headers, successText(data))
}

/**
 * The success envelope of a record a write just made, its text not kept among the record texts
 * of json-text.ts: a new record is seldom read again before it changes, and keeping each one's
 * text (a map entry, memory the collector then moves) cost a write more than it ever saved.
 */
export function written(
  record: object,
  status = 200,
  headers?: Record<string, string>,
): ApiResponse {
  return succeeded(record, status, headers, `${successPrefix}${JSON.stringify(record)}}`)
}

/** The success envelope of `data` whose text (`jsonText(data)`) is made already. */
export function successOf(data: unknown, text: string): ApiResponse {
  return succeeded(data, 200, undefined, `${successPrefix}${text}}`)
}

function succeeded(
  data: unknown,
  status: number,
  headers: Record<string, string> | undefined,
  body: string,
): ApiResponse {
  return {
    status,
    code: codes.success.code,
    headers: headers
      ? { 'content-type': JSON_CONTENT_TYPE, ...headers }
      : { 'content-type': JSON_CONTENT_TYPE },
    body,
    data,
  }
}

/** `{"code":0,"message":"success","data":`, from the envelope itself. */
const successPrefix = JSON.stringify({
  code: codes.success.code,
  message: codes.success.message,
  data: null,
}).slice(0, -'null}'.length)

/** The text of the success envelope of `data`: the same bytes as `JSON.stringify(envelope)`. */
export function successText(data: unknown): string {
  const text = jsonText(data)
  if (text === undefined)
    return JSON.stringify({ code: codes.success.code, message: codes.success.message, data })
  return `${successPrefix}${text}}`
}

/** The failure envelope `{ code, message, data: null }` of an {@link ApiError}. */
export function failure(error: ApiError): ApiResponse {
  return json(
    error.status,
    error.code,
    { code: error.code, message: error.message, data: null },
    { ...error.headers },
  )
}

/** A dropped connection: no status, no body (fault injection). */
export function dropped(): ApiResponse {
  return { status: 0, headers: {}, body: null, code: null, drop: true }
}

/** `204 No Content`. */
export function noContent(headers: Record<string, string> = {}): ApiResponse {
  return { status: 204, headers, body: null, code: codes.success.code }
}

function json(
  status: number,
  code: number,
  payload: unknown,
  headers: Record<string, string>,
): ApiResponse {
  return {
    status,
    code,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: JSON.stringify(payload),
  }
}

/** The `data` of a collection read (CONTRACT A). */
export interface ListPayload<T> {
  list: T[]
  total: number
  page: number
  pageSize: number
}

/** A success response body. */
export interface SuccessEnvelope<T> {
  code: 0
  message: 'success'
  data: T
}

/** A failure response body: a business code (never 0; `C`: the API's codes) and `data: null`. */
export interface ErrorEnvelope<C extends number = number> {
  code: C
  message: string
  data: null
}

/**
 * Any response body of the API: a union that narrows on `code`.
 *
 * @example
 * const body: Envelope<ListPayload<User>> = await res.json()
 * if (body.code === 0) body.data.list // typed, not null
 */
export type Envelope<T, C extends number = number> = SuccessEnvelope<T> | ErrorEnvelope<C>
