import type { Conformance } from './conformance.js'
import { assertConforms } from './conformance.js'

/** What a test sees of a response: status, headers and the parsed envelope. */
export interface Reply {
  status: number
  headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary envelope payloads
  body: any
  text: string
}

export interface CallOptions {
  token?: string | null
  body?: unknown
  /** Raw body text, sent as is. */
  raw?: string
  headers?: Record<string, string | undefined>
  /** The answer is an override's (CONTRACT C2): deliberately outside the OpenAPI document. */
  overridden?: boolean
}

export const ADMIN = 'sandbox-admin-token'
export const MEMBER = 'sandbox-member-token'

/**
 * Calls the API at `base` with fetch; the admin token unless told otherwise. Every reply is
 * checked against the OpenAPI document (status declared, body matching its schema).
 */
export function clientFor(
  base: string,
  conforms: Conformance = assertConforms,
  // Looked up per call: MSW's setupServer replaces the global fetch when it starts listening.
  send: typeof fetch = (input, init) => fetch(input, init),
) {
  const basePath = new URL(base).pathname.replace(/\/$/, '')
  return async function call(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined) headers[name] = value
    const token = options.token === undefined ? ADMIN : options.token
    if (token !== null) headers.authorization = `Bearer ${token}`
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await send(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    })
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      parsed = null
    }
    if (!options.overridden)
      conforms(method, new URL(`${base}${path}`), basePath, response.status, parsed, text)
    return { status: response.status, headers: response.headers, body: parsed, text }
  }
}

export type Call = ReturnType<typeof clientFor>
