/**
 * What HTTP allows in a header (RFC 9110 §5): the one check behind override validation and the
 * last-resort guard of the transports, so an answer can never carry a header Node or Fetch
 * refuses to write.
 */

/** A field name: one or more token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** A field value: tab, visible ASCII, space and obs-text (0x80-0xFF); never CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/** Framing and connection management (hop-by-hop): what the HTTP implementation sets itself. */
export const FRAMING_HEADERS: readonly string[] = [
  'connection',
  'content-length',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]

/** The headers a Connection header names: they belong to that one connection too (RFC 9110 §7.6.1). */
export function namedByConnection(value: string | readonly string[] | undefined): string[] {
  return String(value ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
}

/**
 * Headers the server owns: framing, and the body's encoding. An answer that set them could
 * contradict the bytes actually sent (`Transfer-Encoding: chunked` beside a `Content-Length`, a
 * `Content-Encoding` the body does not have) and leave the client hanging.
 */
export const SERVER_OWNED_HEADERS: ReadonlySet<string> = new Set(
  [...FRAMING_HEADERS, 'content-encoding'].sort(),
)

/** Why `name` cannot be a header name, or null when it can. */
export function headerNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > 100 || !TOKEN.test(name))
    return "must be a header name: 1-100 letters, digits or !#$%&'*+-.^_`|~"
  return null
}

/** Why `value` cannot be a header value, or null when it can. */
export function headerValueProblem(value: string): string | null {
  if (value.length > 4000) return 'must be at most 4000 characters long'
  if (!FIELD_VALUE.test(value))
    return 'must not contain CR, LF, NUL, other control characters or characters outside Latin-1'
  return null
}

/** Whether every header of an answer can be written as it is. */
export function headersWritable(headers: Readonly<Record<string, string | number>>): boolean {
  for (const name in headers) {
    if (headerNameProblem(name) !== null) return false
    if (headerValueProblem(String(headers[name])) !== null) return false
  }
  return true
}
