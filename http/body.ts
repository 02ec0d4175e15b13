import * as z from 'zod'
import {
  describeIssue,
  describeIssues,
  distinctIssues,
  safeParseReporting,
} from '../contract/issues.js'
import { ApiError, MAX_PROBLEMS } from '../contract/api-error.js'
import { MAX_BODY_KEYS, MAX_JSON_DEPTH } from '../contract/json-size.js'
import type { ApiRequest } from '../contract/exchange.js'
import { clip } from '../contract/params.js'
import { heapStatistics } from '../db/heap.js'
import { givenBack } from '../db/progress.js'
import { limitFlag } from '../state/limits.js'

/** Bodies larger than this are refused with 413 / 41300 (CONTRACT B5). */
export const BODY_LIMIT = 1024 * 1024

export { MAX_BODY_KEYS, MAX_JSON_DEPTH }

/** How deep arrays and objects nest in a JSON text, stopping early past `max` (no recursion). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return jsonShapeExceeds(text, max) === 'depth'
}

/**
 * What a JSON text exceeds, read outside its strings without parsing it: nesting deeper than
 * `maxDepth` (`'depth'`), more than `maxCommas` commas (`'commas'`: its keys and list items,
 * less one a container), more than `maxKeys` keys (`'keys'`: its colons), or null. Linear; the
 * engine's own search counts `{`, `[`, `,` and `:` first, and a text that cannot exceed any is
 * done without the walk (most are). The walk jumps over each string with the engine's search
 * for its closing quote (a data document is mostly strings).
 */
export function jsonShapeExceeds(
  text: string,
  maxDepth: number,
  maxCommas = Number.POSITIVE_INFINITY,
  maxKeys = Number.POSITIVE_INFINITY,
): 'depth' | 'commas' | 'keys' | null {
  if (
    !openersExceed(text, maxDepth) &&
    !occurrencesExceed(text, ',', maxCommas) &&
    !occurrencesExceed(text, ':', maxKeys)
  )
    return null
  let depth = 0
  let commas = 0
  let keys = 0
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (char === 34 /* " */) {
      index = closingQuote(text, index)
      if (index < 0) return null // unterminated: JSON.parse refuses it
    } else if (char === 123 /* { */ || char === 91 /* [ */) {
      if (++depth > maxDepth) return 'depth'
    } else if (char === 125 /* } */ || char === 93 /* ] */) depth--
    else if (char === 44 /* , */ && ++commas > maxCommas) return 'commas'
    else if (char === 58 /* : */ && ++keys > maxKeys) return 'keys'
  }
  return null
}

/**
 * Where the string opened at `open` closes (-1 if it does not): the next `"` not escaped, that
 * is not after an odd run of backslashes. Each backslash is looked at once for the quote after
 * its run, so the whole walk stays linear.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 92 /* \\ */) backslashes++
    if (backslashes % 2 === 0) return at
  }
  return -1
}

/** Whether `text` holds `character` more than `max` times (the engine's search, stopping past it). */
function occurrencesExceed(text: string, character: string, max: number): boolean {
  if (max === Number.POSITIVE_INFINITY) return false
  let count = 0
  for (let at = text.indexOf(character); at >= 0; at = text.indexOf(character, at + 1))
    if (++count > max) return true
  return false
}

/** Whether `text` holds more than `max` of `{` and `[` together (objects and arrays, at most). */
export function openersExceed(text: string, max: number): boolean {
  let count = 0
  for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1))
    if (++count > max) return true
  for (let at = text.indexOf('['); at >= 0; at = text.indexOf('[', at + 1))
    if (++count > max) return true
  return false
}

/** 429 / 42900 for a body that does not fit the bodies held in memory at once (C3). */
export function bodiesBusy(): ApiError {
  return ApiError.of('rateLimited', 'too many large request bodies in flight; retry shortly')
}

/**
 * Bodies past this size are decoded and parsed one per turn of the event loop (C3; what it
 * changed: docs/security.md): many read at once were parsed back to back, every other request
 * waiting behind them; taken in turn, the requests between are answered between them.
 */
const TURN_BYTES = 64 * 1024

/**
 * Bytes of request bodies held in memory at once (C3): an eighth of the heap's limit, at most
 * 128 MiB (32 MiB where the heap cannot be read). The server's budget of bodies in flight
 * defaults to it (`inFlightBodyBytes`), and large bodies waiting their turn take at most as
 * much again: read already, they are no longer counted in flight, so past it a body is refused
 * (429 / 42900) rather than held.
 */
export function bodiesHeldBytes(): number {
  const limit = heapStatistics()?.limit
  return limit === undefined ? 32 * 2 ** 20 : Math.min(128 * 2 ** 20, Math.floor(limit / 8))
}

let waitingLimit: number | undefined

let turns: Promise<void> = Promise.resolve()
let waitingBytes = 0
let parsedThisTurn = false

/**
 * Null when the body may be parsed now (no other large body was this turn, none waits), else a
 * turn after those read before it; {@link bodiesBusy} past {@link bodiesHeldBytes}.
 */
function bodyTurn(bytes: number): Promise<void> | null {
  if (waitingBytes === 0 && !parsedThisTurn) {
    parsedThisTurn = true
    void givenBack().then(() => (parsedThisTurn = false))
    return null
  }
  if (waitingBytes + bytes > (waitingLimit ??= bodiesHeldBytes())) throw bodiesBusy()
  waitingBytes += bytes
  const turn = turns.then(givenBack).then(() => {
    waitingBytes -= bytes
  })
  turns = turn
  return turn
}

/** Strict UTF-8 (a malformed byte is an error, not U+FFFD); one call decodes a whole body. */
const utf8 = new TextDecoder('utf-8', { fatal: true })

const jsonType = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i

/** How {@link readJsonBody} reads one body. */
export interface BodyReading {
  /** Bytes the body may take: more is 413 / 41300. */
  limit?: number
  /** Where its size, the parsed body and its text are written. */
  seen?: { bytes?: number; body?: unknown; bodyText?: string }
  /** Called with its size once read, before it is decoded: may refuse it room (it throws). */
  admit?: (bytes: number) => void
  /** Keys it may hold (an API request's: {@link MAX_BODY_KEYS}): more is 413 / 41300. */
  maxKeys?: number
}

/**
 * Whether a request's `Content-Length` says its body is larger than `limit`: refused before it
 * is read, nor asked for (`Expect: 100-continue`).
 */
export function declaredOver(request: Pick<ApiRequest, 'header'>, limit: number): boolean {
  const declared = request.header('content-length')
  return declared !== null && Number(declared) > limit
}

/**
 * The content coding a request's body is sent with (`Content-Encoding: gzip`), or null when it
 * is sent as is (none, or `identity`): a body with one is no JSON the sandbox reads.
 */
export function bodyCoding(request: Pick<ApiRequest, 'header'>): string | null {
  const encoding = request.header('content-encoding')
  return encoding === null || /^[ \t]*identity[ \t]*$/i.test(encoding) ? null : encoding
}

/**
 * Whether a request's body is sent as the API reads one: a JSON media type, uncompressed. Any
 * other is refused 415, and no override's body condition matches it (a `text/plain` body did).
 */
export function sentAsJson(request: Pick<ApiRequest, 'header'>): boolean {
  const type = request.header('content-type')
  return type !== null && jsonType.test(type) && bodyCoding(request) === null
}

/**
 * Reads a JSON request body in the order of CONTRACT B4: size (413), then media type and
 * coding (415: an uncompressed JSON body is what the API takes), then JSON syntax (400 / 40004), its shape checked before it is parsed (nesting 400 / 40004,
 * keys 413 / 41300).
 */
export async function readJsonBody(
  request: Pick<ApiRequest, 'header' | 'readBody'>,
  { limit = BODY_LIMIT, seen, admit, maxKeys }: BodyReading = {},
): Promise<unknown> {
  const tooLarge = () =>
    ApiError.of(
      'payloadTooLarge',
      `body larger than ${limit === BODY_LIMIT ? '1 MiB' : `${limit} bytes`}${limit === BODY_LIMIT ? '' : ` (see ${limitFlag('maxDocumentBytes')})`}`,
    )
  if (declaredOver(request, limit)) throw tooLarge()
  const type = request.header('content-type')
  let bytes: Uint8Array | 'too-large' | 'busy'
  try {
    bytes = await request.readBody(limit)
  } catch {
    // The client went away mid-body: nobody will read this answer, but it is not a crash either.
    throw ApiError.of('malformedJson', 'malformed JSON body: the body was cut off')
  }
  if (bytes === 'too-large') throw tooLarge()
  if (bytes === 'busy') throw bodiesBusy()
  const encoding = bodyCoding(request)
  // A compressed body is not read as if it were not (RFC 9110 section 15.5.16: 415, saying
  // with Accept-Encoding what is taken).
  if (encoding !== null)
    throw ApiError.of(
      'unsupportedMediaType',
      `body is sent with Content-Encoding '${encoding.slice(0, 80)}': send it uncompressed`,
      { 'accept-encoding': 'identity' },
    )
  return jsonOfBody(bytes, type, { seen, admit, maxKeys })
}

/**
 * A body's bytes, read, as JSON: media type (415), then JSON syntax (400 / 40004), its shape
 * checked before it is parsed (nesting 400 / 40004, keys 413 / 41300). {@link readJsonBody}'s
 * second half; the proxy keeps what it forwards for the journal with it. An API request's body
 * (up to 1 MiB, none before it) is parsed at once and its value returned, not a promise: a write
 * then takes no turn of the microtask queue for it.
 */
export function jsonOfBody(
  bytes: Uint8Array,
  type: string | null,
  reading: Omit<BodyReading, 'limit'> = {},
): unknown {
  const { seen, admit } = reading
  if (seen) seen.bytes = bytes.byteLength
  if (type === null || !jsonType.test(type)) {
    throw ApiError.of(
      'unsupportedMediaType',
      `body is not application/json (Content-Type: ${type === null ? 'missing' : `'${type.slice(0, 80)}'`})`,
    )
  }
  if (bytes.byteLength === 0)
    throw ApiError.of('malformedJson', 'malformed JSON body: the body is empty')
  // Read, not yet decoded or parsed: what it becomes may be refused room here (it throws).
  admit?.(bytes.byteLength)
  const turn = bytes.byteLength > TURN_BYTES ? bodyTurn(bytes.byteLength) : null
  if (turn === null && bytes.byteLength <= BODY_LIMIT)
    return parsed(checkedShape(decoded(bytes), reading.maxKeys), seen)
  return (async () => {
    if (turn) await turn
    // A body larger than an API request's (a data document, up to 8 MB) gives the event loop
    // back between decoding, the depth check and parsing, ~10, ~20 and ~50 ms at 8 MB (C3).
    const text = decoded(bytes)
    await givenBack()
    checkedShape(text, reading.maxKeys)
    await givenBack()
    return parsed(text, seen)
  })()
}

function decoded(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw ApiError.of('malformedJson', 'malformed JSON body: not valid UTF-8')
  }
}

/** `text`, once its nesting and its keys are within the bounds (checked before it is parsed). */
function checkedShape(text: string, maxKeys: number | undefined): string {
  const shape = jsonShapeExceeds(text, MAX_JSON_DEPTH, undefined, maxKeys)
  if (shape === 'depth')
    throw ApiError.of(
      'malformedJson',
      `malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`,
    )
  if (shape === 'keys')
    throw ApiError.of(
      'payloadTooLarge',
      `body holds more than ${maxKeys?.toLocaleString('en')} keys in its objects, the most an API request's body may hold`,
    )
  return text
}

function parsed(text: string, seen: BodyReading['seen']): unknown {
  try {
    const body: unknown = JSON.parse(text)
    if (seen) {
      seen.body = body
      seen.bodyText = text
    }
    return body
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message.slice(0, 120) : 'too deeply nested'
    throw ApiError.of('malformedJson', `malformed JSON body: ${reason}`)
  }
}

export interface BodyRules {
  /** Strict mode: unknown and read-only fields are errors instead of being ignored. */
  strict: boolean
  /** Unknown fields are always errors (the control API's bodies), strict mode or not. */
  closed?: boolean
  /** Field names that exist on the record but no client may write. */
  readOnly: readonly string[]
}

/**
 * Validates a parsed body against a zod schema: 422 / 42200 naming every failing field and
 * why, in one pass (the schema's issues and, given `references`, the records the body points
 * at). Unknown and read-only fields are dropped, or reported in strict mode.
 */
export function validateBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  rules: BodyRules,
  references?: (body: unknown) => string[],
): z.output<S> {
  const check = checkBody(schema, body, rules, references)
  if (!check.ok) throw ApiError.invalid(check.problems, check.more)
  return check.data
}

/** What {@link checkBody} finds: the data, or the problems (the first {@link MAX_PROBLEMS}) and how many more. */
export type BodyCheck<T> = { ok: true; data: T } | { ok: false; problems: string[]; more: number }

/**
 * {@link validateBody}'s check without the answer: what MCP's tools check their input with
 * (`root` names the whole of it in a problem: `body`, `input`).
 */
export function checkBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  rules: BodyRules,
  references?: (body: unknown) => string[],
  root = 'body',
): BodyCheck<z.output<S>> {
  const checksFields = rules.strict || rules.closed === true
  const found: Found = { problems: [], more: 0 }
  // Checking fields, zod parses only what the schema knows (unknown keys were reported here).
  const known = checksFields
    ? knownPart(schema, body, '', rules, rules.closed ? '' : ' (strict mode)', found)
    : body
  const result = safeParseReporting(schema, known)
  if (!result.success) {
    // Unknown keys found above were taken out; those zod finds (where they were not looked
    // for) are said here, so a refusal never goes without its reason.
    for (const issue of distinctIssues(result.error.issues)) {
      for (const problem of describeIssues(issue, root)) note(found, problem)
    }
  }
  // References (unknown user, unknown or inactive product) are read from the raw body, so one
  // 422 names them beside every other failing field.
  if (references) for (const problem of references(body)) note(found, problem)
  if (found.problems.length > 0 || !result.success) return { ok: false, ...found }
  return { ok: true, data: result.data }
}

/** A body's problems: the first {@link MAX_PROBLEMS} as text (what the message shows), the rest counted. */
interface Found {
  problems: string[]
  more: number
}

/** Notes a problem; `problem` may be a function making its text, called only when it is shown. */
function note(found: Found, problem: string | (() => string)): void {
  if (found.problems.length < MAX_PROBLEMS)
    found.problems.push(typeof problem === 'string' ? problem : problem())
  else found.more++
}

/**
 * The part of a body its schema knows, reporting the rest (unknown and read-only fields) into
 * `found`: the body itself when nothing is unknown, else a copy without those fields; a list longer
 * than its schema allows is reported (first) and cut to its limit. One walk of the body, so a 1 MiB
 * body of 90,000 unknown keys (or 60,000 list items where 100 are allowed) costs that walk, not a
 * problem text and a zod issue each.
 */
function knownPart(
  schema: z.ZodType,
  value: unknown,
  path: string,
  rules: BodyRules,
  suffix: string,
  found: Found,
): unknown {
  const inner = unwrap(schema)
  if (inner instanceof z.ZodArray && Array.isArray(value)) {
    const max = longest(inner)
    // Too long: said here, first, and zod checks only the items the list may have.
    const tooLong = value.length > max
    if (tooLong) note(found, describeIssue(tooManyItems(max), path || 'body'))
    const items = tooLong ? value.slice(0, max) : value
    let copy: unknown[] | undefined
    for (let index = 0; index < items.length; index++) {
      const item: unknown = items[index]
      const kept = knownPart(
        inner.element as z.ZodType,
        item,
        `${path}[${index}]`,
        rules,
        suffix,
        found,
      )
      if (kept !== item) (copy ??= items.slice())[index] = kept
    }
    return copy ?? items
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  // A union with one object among its options (a delay: `150`, `"100-300"` or `{ min, max }`):
  // an object is checked as that option (its unknown keys were dropped unsaid).
  if (inner instanceof z.ZodUnion) {
    const objects = (inner.options as z.ZodType[]).filter(
      (option) => unwrap(option) instanceof z.ZodObject,
    )
    return objects.length === 1 ? knownPart(objects[0]!, value, path, rules, suffix, found) : value
  }
  if (!(inner instanceof z.ZodObject)) return value
  const shape = inner.shape as Record<string, z.ZodType>
  const fields = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  const keys = Object.keys(fields)
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!
    const child = fields[key]
    if (Object.hasOwn(shape, key)) {
      const kept = knownPart(
        shape[key]!,
        child,
        path ? `${path}.${clip(key)}` : clip(key),
        rules,
        suffix,
        found,
      )
      if (kept !== child || copy) (copy ??= pick(fields, keys, index, shape))[key] = kept
    } else {
      // Its text made only while problems are still shown (past the 50th, only counted).
      note(
        found,
        () =>
          `${path ? `${path}.${clip(key)}` : clip(key)}: ${rules.readOnly.includes(key) ? 'is read-only' : 'is not a known field'}${suffix}`,
      )
      copy ??= pick(fields, keys, index, shape)
    }
  }
  return copy ?? value
}

/** A new object with the schema's fields among the first `count` keys of `fields`. */
function pick(
  fields: Record<string, unknown>,
  keys: readonly string[],
  count: number,
  shape: Record<string, unknown>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (let index = 0; index < count; index++) {
    const key = keys[index]!
    if (Object.hasOwn(shape, key)) copy[key] = fields[key]
  }
  return copy
}

/** The issue zod makes for a list longer than \`max\` items. */
const tooManyItems = (max: number): z.core.$ZodIssue =>
  ({
    code: 'too_big',
    origin: 'array',
    maximum: max,
    inclusive: true,
    path: [],
    message: '',
  }) as z.core.$ZodIssue

/** The most items a list schema allows (its `.max()`), or no limit. */
function longest(schema: z.ZodArray): number {
  let max = Infinity
  for (const check of schema._zod.def.checks ?? []) {
    const def = check._zod.def as { check?: string; maximum?: unknown }
    if (def.check === 'max_length' && typeof def.maximum === 'number')
      max = Math.min(max, def.maximum)
  }
  return max
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodNullable
    )
      current = current.unwrap() as z.ZodType
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType
    else return current
  }
}
