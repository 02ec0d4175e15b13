/**
 * What the sandbox never shows or writes down: credentials in header names, query parameters
 * and JSON fields. The journal (`GET /__sandbox/requests`) and `--record`'s file both redact
 * with these, and every scan here is linear in its input (a hand loop; no regular expression
 * with nested quantifiers runs over caller text).
 */

/** Words that make a JSON field secret wherever they appear in its name (`access_token`). */
const FIELD_WORDS = [
  'pass',
  'pwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'credential',
  'privatekey',
  'private_key',
  'private-key',
  'sessionid',
  'session_id',
  'session-id',
]

/** Names that make a JSON field secret when they are its whole name (`otp`, not `footprint`). */
const FIELD_NAMES = ['otp', 'pin', 'cvv', 'cvc']

/** A query parameter: a field's words, and these (`?sig=`, `?key=` whole). */
const PARAM_WORDS = [...FIELD_WORDS, 'session', 'signature', '^key$', '^sig$', '^auth$']

/** A header: a field's words, and these (`X-Auth-Token`, `Cookie`, `X-CSRF-Token`). */
const HEADER_WORDS = [...FIELD_WORDS, 'auth', 'cookie', 'session', 'csrf', 'xsrf', 'signature']

/** Headers shown by their scheme only (`Bearer ***`). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
])

/**
 * The authentication schemes shown before `***` (IANA's registry, and the common `Token` and
 * `ApiKey`), lower-cased: a first word that is none of them may be the credential itself
 * (`Authorization: <token> x`), so it is not shown.
 */
export const AUTH_SCHEMES: ReadonlySet<string> = new Set(
  [
    'Basic',
    'Bearer',
    'Concealed',
    'Digest',
    'DPoP',
    'GNAP',
    'HOBA',
    'Mutual',
    'Negotiate',
    'NTLM',
    'OAuth',
    'PrivateToken',
    'SCRAM-SHA-1',
    'SCRAM-SHA-256',
    'vapid',
    'AWS4-HMAC-SHA256',
    'Token',
    'ApiKey',
  ].map((scheme) => scheme.toLowerCase()),
)

/** The value a secret is replaced with. */
export const REDACTED = '[redacted]'

/** Any of the words, case-insensitively: literals only, so a test is linear in the text. */
const anyOf = (words: readonly string[]) => new RegExp(words.join('|'), 'i')
const SECRET_FIELD = anyOf([...FIELD_WORDS, ...FIELD_NAMES.map((name) => `^${name}$`)])
/** Whether a text holds any of them at all (the names as words too): a quick first look. */
const SECRET_WORD = anyOf([...FIELD_WORDS, ...FIELD_NAMES])
const SECRET_PARAM = anyOf(PARAM_WORDS)
const SECRET_HEADER = anyOf(HEADER_WORDS)

/** Whether a JSON field of this name holds a secret (`password`, `access_token`, `apiKey`). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name)
}

/** Whether a query parameter of this name carries a credential (`?token=`, `?api_key=`, `?sig=`). */
export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name)
}

/** Whether a header of this name carries a credential (`Authorization`, `X-Api-Key`, `Cookie`). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name) && name.toLowerCase() !== 'www-authenticate'
}

/** Whether a JSON text might hold a secret field: a secret word anywhere, or any escape (`\u0070ass`). */
export function maybeSecret(text: string): boolean {
  return text.includes('\\') || SECRET_WORD.test(text)
}

/**
 * A JSON text with the value of every secret field (`"password": …`, any value: a string, a
 * number, an object) replaced by `"[redacted]"`, found without parsing and in one pass: keys
 * are read as string tokens followed by `:`, values skipped by a bracket count. Text that is
 * not JSON (an override's HTML, a cut body) is scanned the same way and comes out whole.
 */
export function redactJsonText(text: string): string {
  if (!maybeSecret(text)) return text
  const length = text.length
  let out: string[] | null = null
  let copied = 0
  let index = 0
  while (index < length) {
    const quote = text.indexOf('"', index)
    if (quote < 0) break
    const end = stringEnd(text, quote)
    if (end < 0) break
    const after = skipSpace(text, end)
    if (text.charCodeAt(after) !== 58 /* : */ || !isSecretKey(text, quote, end)) {
      index = end
      continue
    }
    const valueStart = skipSpace(text, after + 1)
    const valueEnd = valueEndAt(text, valueStart)
    if (valueEnd <= valueStart) {
      index = end
      continue
    }
    out ??= []
    out.push(text.slice(copied, valueStart), `"${REDACTED}"`)
    copied = valueEnd
    index = valueEnd
  }
  if (out === null) return text
  out.push(text.slice(copied))
  return out.join('')
}

/** The index just past the JSON string starting at `start` (a `"`), or -1 when it never ends. */
function stringEnd(text: string, start: number): number {
  let index = start + 1
  for (;;) {
    const quote = text.indexOf('"', index)
    if (quote < 0) return -1
    // Escaped when preceded by an odd run of backslashes.
    let slashes = 0
    for (let back = quote - 1; back > start && text.charCodeAt(back) === 92; back--) slashes++
    if (slashes % 2 === 0) return quote + 1
    index = quote + 1
  }
}

function skipSpace(text: string, index: number): number {
  while (index < text.length) {
    const char = text.charCodeAt(index)
    if (char !== 32 && char !== 9 && char !== 10 && char !== 13) break
    index++
  }
  return index
}

/** Whether the string token text[start, end) names a secret field (escapes decoded). */
function isSecretKey(text: string, start: number, end: number): boolean {
  const raw = text.slice(start + 1, end - 1)
  if (!raw.includes('\\')) return isSecretField(raw)
  try {
    return isSecretField(JSON.parse(text.slice(start, end)) as string)
  } catch {
    return isSecretField(raw)
  }
}

/**
 * The end of the JSON value starting at `start`: a string, an object or array (brackets
 * counted, strings skipped), or a bare word (number, true, false, null).
 */
function valueEndAt(text: string, start: number): number {
  const first = text.charCodeAt(start)
  if (first === 34 /* " */) {
    const end = stringEnd(text, start)
    return end < 0 ? text.length : end
  }
  if (first === 123 /* { */ || first === 91 /* [ */) {
    let depth = 0
    let index = start
    while (index < text.length) {
      const char = text.charCodeAt(index)
      if (char === 34) {
        const end = stringEnd(text, index)
        if (end < 0) return text.length
        index = end
        continue
      }
      if (char === 123 || char === 91) depth++
      else if (char === 125 /* } */ || char === 93 /* ] */) {
        depth--
        if (depth === 0) return index + 1
      }
      index++
    }
    return text.length
  }
  let index = start
  while (index < text.length) {
    const char = text.charCodeAt(index)
    if (char === 44 /* , */ || char === 125 || char === 93 || char <= 32) break
    index++
  }
  return index
}

/**
 * A parsed JSON value with every secret field's value replaced (a copy; the value is not
 * changed), walked without recursion: what `--record` writes for a JSON body.
 */
export function redactJsonValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const root: { value: unknown } = { value: undefined }
  const stack: Array<[unknown, Record<string | number, unknown>, string | number]> = [
    [value, root as unknown as Record<string, unknown>, 'value'],
  ]
  while (stack.length > 0) {
    const [current, parent, key] = stack.pop()!
    if (typeof current !== 'object' || current === null) {
      parent[key] = current
      continue
    }
    if (Array.isArray(current)) {
      const copy: unknown[] = new Array(current.length)
      parent[key] = copy
      for (let index = 0; index < current.length; index++)
        stack.push([current[index], copy as unknown as Record<number, unknown>, index])
      continue
    }
    // Without a prototype: a `__proto__` key (JSON.parse makes it an own key) stays a key.
    const copy: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    parent[key] = copy
    for (const name of Object.keys(current)) {
      // Each key set now, in order (its value when popped): the copy keeps the keys' order.
      copy[name] = REDACTED
      if (!isSecretField(name)) stack.push([(current as Record<string, unknown>)[name], copy, name])
    }
  }
  return root.value
}
