import * as z from 'zod'
import { documented } from '../contract/registry.js'
import { describeIssues, distinctIssues, safeParseReporting } from '../contract/issues.js'
import { jsonFootprint, notJson } from '../contract/json-size.js'
import { once } from '../contract/once.js'
import { statusHeaders } from '../contract/api-error.js'
import { codeForStatus, codes } from '../contract/codes.js'
import { JSON_CONTENT_TYPE } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import { pastAscii } from '../contract/exchange.js'
import { headerNameProblem, headerValueProblem, SERVER_OWNED_HEADERS } from '../contract/headers.js'
import type { OverrideLimits } from './limits.js'
import { limitFlag } from './limits.js'
import { MAX_DELAY_MS } from './runtime-config.js'

/** Methods an override may name (HEAD is matched by GET overrides, as by GET routes). */
export const overrideMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export type OverrideMethod = (typeof overrideMethods)[number]

/** Entries of a sequence (`responses`) at most. */
export const MAX_SEQUENCE = 100
/** Query parameters or headers one override may require, or response headers it may send, at most. */
export const MAX_CONDITIONS = 50
/** Bytes of response headers one override may send (clients refuse answers with huge headers). */
export const MAX_HEADER_BYTES = 8 * 1024
/** Characters of JSON a body condition may hold: every request on its path is compared with it. */
const MAX_BODY_CONDITION = 16 * 1024
/** How deep an override's JSON may nest (as request bodies: CONTRACT C3). */
const MAX_DEPTH = 64

/**
 * The lowest status an override may answer: a 1xx is an interim answer, never a final one (a
 * client would wait for the real answer until its timeout), so it is refused.
 */
export const MIN_OVERRIDE_STATUS = 200

/** Response headers: each name and value as HTTP allows, none the server owns (framing, connection). */
const responseHeadersSchema = z.record(z.string(), z.string()).superRefine((headers, context) => {
  const names = Object.keys(headers)
  const bytes = names.reduce((sum, name) => sum + name.length + headers[name]!.length + 4, 0)
  if (names.length > MAX_CONDITIONS || bytes > MAX_HEADER_BYTES)
    context.addIssue({
      code: 'custom',
      path: [],
      message: `must be at most ${MAX_CONDITIONS} headers and ${MAX_HEADER_BYTES} bytes (got ${names.length} headers, ${bytes} bytes)`,
    })
  for (const [name, value] of Object.entries(headers)) {
    const problem =
      headerNameProblem(name) ??
      (SERVER_OWNED_HEADERS.has(name.toLowerCase())
        ? `is set by the server (${[...SERVER_OWNED_HEADERS].join(', ')} cannot be overridden)`
        : headerValueProblem(value))
    if (problem) context.addIssue({ code: 'custom', path: [name], message: problem })
  }
})

/** Request headers an override requires: names as HTTP allows, values as given. */
const requestHeadersSchema = z
  .record(z.string(), z.string().max(4000))
  .superRefine((headers, context) => {
    const names = Object.keys(headers)
    if (names.length > MAX_CONDITIONS)
      context.addIssue({ code: 'custom', path: [], message: `must name at most ${MAX_CONDITIONS}` })
    for (const name of names) {
      const problem = headerNameProblem(name) ?? headerValueProblem(headers[name]!)
      if (problem) context.addIssue({ code: 'custom', path: [name], message: problem })
    }
  })

/** Any JSON value: over HTTP it always is; `sandbox.override()` in code may be given anything. */
const jsonValue = () =>
  z.unknown().superRefine((value, context) => {
    const problem = notJson(value)
    if (problem) context.addIssue({ code: 'custom', message: `must be JSON: ${problem}` })
  })

/**
 * What an override answers (CONTRACT C2): an envelope (`status` with `code`, `message`, `data`),
 * a raw JSON `body`, or a dropped connection (`drop: true`); `headers` and `delayMs` with any.
 * One object, so each problem names its own field (`response.status`), not the whole union.
 */
const overrideResponseSchema = once(() =>
  documented(
    z
      .strictObject({
        status: documented(
          z
            .int('must be an integer from 200 to 599')
            .min(MIN_OVERRIDE_STATUS, 'must be from 200 to 599 (a 1xx is not a final answer)')
            .max(599, 'must be from 200 to 599'),
          { description: 'The HTTP status, 200-599. Required unless `drop` is true.' },
        ).optional(),
        code: documented(z.int().min(0).max(99_999), {
          description: 'The business code; default: the B5 code of the status.',
        }).optional(),
        message: z.string().max(2000).optional(),
        data: documented(jsonValue(), { description: 'The `data` of a 2xx envelope.' }).optional(),
        body: documented(jsonValue(), {
          description: 'Any JSON, sent as it is instead of an envelope.',
        }).optional(),
        text: documented(z.string(), {
          description:
            'A body that is not JSON (an HTML page, CSV), sent as it is, as UTF-8; its Content-Type from `headers`, else text/plain. What the recorder (the server’s record option) writes for such answers.',
        }).optional(),
        headers: documented(responseHeadersSchema, {
          description:
            'Response headers. Names and values as HTTP allows; Content-Length, Transfer-Encoding, Connection and the other headers the server owns are refused.',
        }).optional(),
        delayMs: z.int().min(0).max(MAX_DELAY_MS).optional(),
        drop: documented(z.literal(true), {
          description: 'Reset the connection instead of answering.',
        }).optional(),
      })
      .superRefine((response, context) => {
        if (response.drop) {
          for (const field of [
            'status',
            'code',
            'message',
            'data',
            'body',
            'text',
            'headers',
          ] as const) {
            if (response[field] !== undefined)
              context.addIssue({
                code: 'custom',
                path: [field],
                message: 'cannot be combined with drop: a dropped connection answers nothing',
              })
          }
          return
        }
        if (response.status === undefined)
          context.addIssue({
            code: 'custom',
            path: ['status'],
            message: 'is required (or give drop: true)',
          })
        for (const raw of ['body', 'text'] as const) {
          if (response[raw] === undefined) continue
          for (const field of [
            'code',
            'message',
            'data',
            ...(raw === 'text' ? ['body'] : []),
          ] as const) {
            if (response[field as 'code'] !== undefined)
              context.addIssue({
                code: 'custom',
                path: [field],
                message: `cannot be combined with ${raw}: ${raw} is sent as it is, without an envelope`,
              })
          }
        }
      }),
    { id: 'OverrideAnswer' },
  ),
)

export type OverrideResponse = z.output<ReturnType<typeof overrideResponseSchema>>

/** The body of `POST /__sandbox/overrides` and of `sandbox.override()` (built on first use). */
export const overrideInputSchema = once(() =>
  documented(
    z
      .strictObject({
        method: documented(
          z
            .string()
            .transform((method) => method.toUpperCase())
            .pipe(
              z.enum(overrideMethods, {
                error: `must be one of ${overrideMethods.join(', ')}`,
              }),
            )
            .optional(),
          {
            description:
              'Default: the methods of the route at `path` (any method on a path the API lacks).',
          },
        ),
        path: documented(
          z
            .string()
            .min(1)
            .max(2000)
            .regex(
              /^\/[^?#\s\x00-\x1f\x7f]*$/,
              'must be a path starting with / (like /users/{user_id}), without a query, fragment, spaces or control characters',
            )
            .superRefine((path, context) => {
              const problem = pathProblem(path)
              if (problem) context.addIssue({ code: 'custom', message: problem })
            }),
          {
            description:
              'Relative to the base path: a route template (`/users/{user_id}`) matches every id, a concrete path (`/users/5`) that one; a path the API lacks makes a stub.',
          },
        ),
        query: documented(
          z
            .record(z.string().max(200), z.string().max(4000))
            .refine((query) => Object.keys(query).length <= MAX_CONDITIONS, {
              message: `must name at most ${MAX_CONDITIONS} parameters`,
            })
            .optional(),
          { description: 'Every listed query parameter must be present with this value.' },
        ),
        headers: documented(requestHeadersSchema.optional(), {
          description:
            'Every listed request header must be present with this value (names case-insensitive).',
        }),
        body: documented(
          z.unknown().superRefine((value, context) => {
            const problem = notJson(value)
            if (problem) context.addIssue({ code: 'custom', message: `must be JSON: ${problem}` })
            else if ((JSON.stringify(value) ?? '').length > MAX_BODY_CONDITION)
              context.addIssue({
                code: 'custom',
                message: `must be at most ${MAX_BODY_CONDITION} characters of JSON`,
              })
          }),
          {
            description:
              "The request's JSON body must contain this value: every key of an object present with a matching value, recursively; arrays and scalars equal.",
          },
        ).optional(),
        times: documented(z.int().min(1).max(1_000_000_000).optional(), {
          description: 'Matching requests it answers, then it is removed. Default: unlimited.',
        }),
        response: overrideResponseSchema().optional(),
        responses: documented(
          z.array(overrideResponseSchema()).min(1).max(MAX_SEQUENCE).optional(),
          {
            description:
              'A sequence instead of `response`: the first matching request gets the first entry, the next the second, and so on; the last repeats.',
          },
        ),
      })
      .superRefine((input, context) => {
        const given = Number(input.response !== undefined) + Number(input.responses !== undefined)
        if (given !== 1)
          context.addIssue({
            code: 'custom',
            path: [given === 0 ? 'response' : 'responses'],
            message:
              given === 0
                ? 'is required (or give responses, a sequence)'
                : 'cannot be combined with response: give one of them',
          })
      }),
    { id: 'OverrideCreate' },
  ),
)

export type OverrideInput = z.input<ReturnType<typeof overrideInputSchema>>
export type ParsedOverride = z.output<ReturnType<typeof overrideInputSchema>>
type ParsedInput = ParsedOverride

/**
 * An override validated as `POST /__sandbox/overrides` validates it, or a TypeError naming
 * each bad field after `prefix` (`Invalid override: response.status: must be from 200 to 599`).
 */
export function parseOverride(input: unknown, prefix = 'Invalid override'): ParsedOverride {
  // Checked before the schema walks it (recursively): as request bodies are (CONTRACT C3).
  if (jsonFootprint(input, MAX_DEPTH).tooDeep)
    throw new TypeError(`${prefix}: override: must not nest deeper than ${MAX_DEPTH} levels`)
  const parsed = safeParseReporting(overrideInputSchema(), input)
  if (parsed.success) return parsed.data
  const problems = distinctIssues(parsed.error.issues).flatMap((issue) =>
    describeIssues(issue, 'override'),
  )
  throw new TypeError(`${prefix}: ${problems.join('; ')}`)
}

/** A stored override, as `GET /__sandbox/overrides` lists it. */
export interface Override {
  id: number
  method?: OverrideMethod
  path: string
  query?: Record<string, string>
  headers?: Record<string, string>
  body?: unknown
  times?: number
  /** Matching requests it still answers (counted overrides only). */
  remaining?: number
  response?: OverrideResponse
  responses?: OverrideResponse[]
  /** The index in `responses` answered next (sequences only). */
  next?: number
}

export const overrideSchema = once(() =>
  documented(
    z.object({
      id: z.int(),
      method: z.enum(overrideMethods).optional(),
      path: z.string(),
      query: z.record(z.string(), z.string()).optional(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
      times: z.int().optional(),
      remaining: z.int().optional(),
      response: overrideResponseSchema().optional(),
      responses: z.array(overrideResponseSchema()).optional(),
      next: documented(z.int(), {
        description: 'The index in `responses` answered next (sequences only).',
      }).optional(),
    }),
    { id: 'Override' },
  ),
)

/** Why an override's path could never match a request, or null when it can. */
function pathProblem(path: string): string | null {
  if (path === '/__sandbox' || path.startsWith('/__sandbox/'))
    return 'must not be under /__sandbox: the control API cannot be overridden'
  const segments = path.replace(/\/$/, '').split('/').slice(1)
  if (path !== '/' && segments.some((segment) => segment === ''))
    return 'must not have empty segments (//): no request reaches such a path'
  for (const segment of segments) {
    if (/^:\w+$/.test(segment))
      return `names a parameter as ${segment}: write it in braces, like {${segment.slice(1)}}`
    if (/[{}]/.test(segment) && !/^\{\w+\}$/.test(segment))
      return `has '${segment}': a parameter is a whole segment, like {user_id}`
  }
  return null
}

/** Runs of characters the URL parser percent-encodes in a path (WHATWG URL's path set, braces aside). */
const PATH_ENCODED = /[\u0000-\u0020"#<>?`\u007f-\uffff]+/g

/** A lone surrogate (half of a pair): the URL parser reads it as U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * A path segment as the router sees it in a request's URL: characters the URL parser would
 * encode are encoded (`café` as `caf%C3%A9`), escapes in upper case (`%7e` is `%7E`); nothing
 * is decoded, as the router decodes nothing (`/users/%33` is no user id).
 */
function canonicalSegment(segment: string): string {
  return segment
    .replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase())
    .replace(PATH_ENCODED, (run) => encodeURIComponent(run.replace(LONE_SURROGATE, '\ufffd')))
}

/**
 * The segments of a path as the router sees them, a trailing slash dropped; null for a path no
 * route can match (an empty segment, `//x`).
 */
export function pathSegments(path: string): string[] | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  if (trimmed === '/' || trimmed === '') return []
  const segments: string[] = []
  for (const part of trimmed.split('/').slice(1)) {
    if (part === '') return null
    segments.push(/^\{\w+\}$/.test(part) ? part : canonicalSegment(part))
  }
  return segments
}

/**
 * A path template or concrete path as a matcher of a request path's segments (as
 * {@link pathSegments} splits them): `{name}` matches any one segment, a trailing slash and
 * percent-encoding are ignored.
 */
export function segmentMatcher(path: string): (segments: readonly string[] | null) => boolean {
  const template = pathSegments(path) ?? []
  const pattern = template.map((part) => (/^\{\w+\}$/.test(part) ? null : part))
  return (segments) => {
    if (segments === null || segments.length !== pattern.length) return false
    for (let index = 0; index < pattern.length; index++) {
      const literal = pattern[index]
      if (literal !== null && literal !== segments[index]) return false
    }
    return true
  }
}

/** {@link segmentMatcher} for one path at a time (the journal's filter). */
export function pathMatcher(path: string): (candidate: string) => boolean {
  const matches = segmentMatcher(path)
  return (candidate) => matches(pathSegments(candidate))
}

/** The parts of a request an override can match. */
export interface MatchRequest {
  method: string
  /** The path under the base path. */
  path: string
  url: URL
  header(name: string): string | null
  /**
   * The parsed JSON body: `undefined` while unknown (not read yet), `NO_JSON` when there is none
   * or it is not JSON.
   */
  body?: unknown
  /** The path's segments, split once for every override it is matched against. */
  segments?: readonly string[] | null
  /** The query's values by name, read once for every condition. */
  queryValues?: ReadonlyMap<string, ReadonlySet<string>>
}

/** A request's path segments, split on first use. */
function segmentsOf(request: MatchRequest): readonly string[] | null {
  if (request.segments === undefined) request.segments = pathSegments(request.path)
  return request.segments
}

/** A request's query values by name, read on first use. */
function queryValuesOf(request: MatchRequest): ReadonlyMap<string, ReadonlySet<string>> {
  if (request.queryValues === undefined) {
    const values = new Map<string, Set<string>>()
    for (const [name, value] of request.url.searchParams) {
      const set = values.get(name)
      if (set) set.add(value)
      else values.set(name, new Set([value]))
    }
    request.queryValues = values
  }
  return request.queryValues
}

/** A request without a JSON body, as far as body conditions go. */
export const NO_JSON: unique symbol = Symbol('no JSON body')

/** Returned by {@link Overrides.find} when the body must be read to decide. */
export const NEEDS_BODY: unique symbol = Symbol('needs the body')

/** Why an override did not match a request: the first condition it failed. */
export interface NearMiss {
  overrideId: number
  /** `method`, `path`, `query.status`, `headers.x-client`, `body.items`, … */
  reason: string
}

interface Stored extends Override {
  matches: (segments: readonly string[] | null) => boolean
  /** The header conditions with lower-case names. */
  headerConditions?: Array<[string, string]>
  /** Estimated bytes it holds. */
  bytes: number
}

/** What every override costs besides its values (matcher, record). */
const OVERRIDE_OVERHEAD = 512

/** What an override is counted as against its sandbox's `overridesBytes` (the recorder counts the same). */
export function overrideFootprint(input: unknown): number {
  return OVERRIDE_OVERHEAD + jsonFootprint(input).bytes
}

/** Refused: too many overrides, or too many bytes of them (the caller answers 413 or 429). */
export class OverrideBoundError extends Error {
  override readonly name = 'OverrideBoundError'
  constructor(
    message: string,
    /** `too-large`: this one alone is over the byte bound (413); `full`: the sandbox is (429). */
    readonly kind: 'too-large' | 'full',
  ) {
    super(message)
  }
}

/** The overrides of one sandbox: newest first when matching; kept across data resets. */
export class Overrides {
  #list: Stored[] = []
  #nextId = 1
  #bytes = 0

  constructor(readonly limits: OverrideLimits) {}

  /**
   * Stores an already validated override; past the sandbox's bounds, an
   * {@link OverrideBoundError}. Its memory is estimated from its shape, not its JSON's length.
   */
  add(input: ParsedInput): Override {
    const bytes = overrideFootprint(input)
    if (bytes > this.limits.bytes) {
      throw new OverrideBoundError(
        `override too large: it takes about ${bytes} bytes, over the ${this.limits.bytes} bytes overrides may take in one sandbox (${limitFlag('overridesBytes')})`,
        'too-large',
      )
    }
    if (this.#list.length >= this.limits.count) {
      throw new OverrideBoundError(
        `this sandbox already has ${this.#list.length} overrides, the most it keeps (${limitFlag('maxOverrides')}); remove some (DELETE /__sandbox/overrides)`,
        'full',
      )
    }
    if (this.#bytes + bytes > this.limits.bytes) {
      throw new OverrideBoundError(
        `this sandbox's overrides would take about ${this.#bytes + bytes} bytes, over ${limitFlag('overridesBytes')} ${this.limits.bytes}; remove some (DELETE /__sandbox/overrides)`,
        'full',
      )
    }
    const stored: Stored = {
      id: this.#nextId++,
      ...(input.method ? { method: input.method } : {}),
      path: input.path,
      ...(input.query ? { query: input.query } : {}),
      ...(input.headers ? { headers: input.headers } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.times ? { times: input.times, remaining: input.times } : {}),
      ...(input.responses
        ? { responses: input.responses, next: 0 }
        : { response: input.response! }),
      matches: segmentMatcher(input.path),
      ...(input.headers
        ? {
            headerConditions: Object.entries(input.headers).map(
              ([name, value]) => [name.toLowerCase(), value] as [string, string],
            ),
          }
        : {}),
      bytes,
    }
    this.#list.push(stored)
    this.#bytes += bytes
    return this.#public(stored)
  }

  /** Oldest first, as the control API lists them. */
  list(): Override[] {
    return this.#list.map((stored) => this.#public(stored))
  }

  get size(): number {
    return this.#list.length
  }

  /** Estimated bytes the overrides hold (counted against the sandboxes' memory budget). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * The `Allow` of a 405 an override answers on a path the API lacks: the methods of the
   * overrides on that path (every method when one of them names none).
   */
  methodsAt(path: string): string {
    const methods = new Set<string>()
    const segments = pathSegments(path)
    for (const stored of this.#list) {
      if (!stored.matches(segments)) continue
      if (!stored.method) return overrideMethods.join(', ')
      methods.add(stored.method)
    }
    return [...methods].join(', ')
  }

  /** Whether any override has a body condition (then a near miss may need the body). */
  get matchesBodies(): boolean {
    return this.#list.some((stored) => stored.body !== undefined)
  }

  remove(id: number): boolean {
    const index = this.#list.findIndex((stored) => stored.id === id)
    if (index < 0) return false
    this.#bytes -= this.#list[index]!.bytes
    this.#list.splice(index, 1)
    return true
  }

  clear(): void {
    this.#list = []
    this.#bytes = 0
  }

  /**
   * The newest override matching a request, not yet counted ({@link take} counts it): null when
   * none does, {@link NEEDS_BODY} when an override with a body condition matches everything
   * else and the request's body is not known yet. `methods`: the methods a method-less override
   * applies to (the route's), or null for any (a path the API lacks).
   */
  find(
    request: MatchRequest,
    methods: ReadonlySet<string> | null,
  ): Stored | null | typeof NEEDS_BODY {
    for (let index = this.#list.length - 1; index >= 0; index--) {
      const stored = this.#list[index]!
      const failed = firstFailure(stored, request, methods)
      if (failed === null) return stored
      if (failed === NEEDS_BODY) return NEEDS_BODY
    }
    return null
  }

  /** Counts a match of an override {@link find} returned: its answer, and its removal after the last. */
  take(found: Override): { override: Override; response: OverrideResponse } {
    const stored = found as Stored
    let response: OverrideResponse
    if (stored.responses) {
      const next = stored.next ?? 0
      response = stored.responses[Math.min(next, stored.responses.length - 1)]!
      stored.next = Math.min(next + 1, stored.responses.length - 1)
    } else response = stored.response!
    if (stored.remaining !== undefined) {
      stored.remaining -= 1
      if (stored.remaining <= 0) this.remove(stored.id)
    }
    return { override: this.#public(stored), response }
  }

  /**
   * The override a request came closest to matching and the first condition it failed (CONTRACT
   * C2's near misses): the one that passed the most conditions, the newest on a tie. Null when
   * the sandbox has no overrides.
   */
  nearMiss(request: MatchRequest): NearMiss | null {
    let best: { stored: Stored; passed: number; reason: string } | null = null
    for (let index = this.#list.length - 1; index >= 0; index--) {
      const stored = this.#list[index]!
      const checks = conditions(stored, request, null)
      let passed = 0
      let reason: string | null = null
      for (const check of checks) {
        const failed = check()
        if (failed === null) passed++
        else reason ??= failed === NEEDS_BODY ? 'body' : failed
      }
      if (reason === null) continue
      if (!best || passed > best.passed) best = { stored, passed, reason }
    }
    return best && { overrideId: best.stored.id, reason: best.reason }
  }

  #public(stored: Stored): Override {
    const { matches: _, headerConditions: __, bytes: ___, ...override } = stored
    return { ...override }
  }
}

/** A check of one condition: null when it holds, else what failed. */
type Check = () => string | null | typeof NEEDS_BODY

/** The conditions of an override, in the order near misses report them. */
function conditions(
  stored: Stored,
  request: MatchRequest,
  methods: ReadonlySet<string> | null,
): Check[] {
  const checks: Check[] = [
    () => (methodMatches(stored.method, request.method, methods) ? null : 'method'),
    () => (stored.matches(segmentsOf(request)) ? null : 'path'),
  ]
  if (stored.query) {
    for (const [name, value] of Object.entries(stored.query))
      checks.push(() => (queryValuesOf(request).get(name)?.has(value) ? null : `query.${name}`))
  }
  if (stored.headerConditions) {
    for (const [name, value] of stored.headerConditions)
      checks.push(() => (request.header(name) === value ? null : `headers.${name}`))
  }
  if (stored.body !== undefined) {
    checks.push(() => {
      if (request.body === undefined) return NEEDS_BODY
      if (request.body === NO_JSON) return 'body'
      return containsAt(request.body, stored.body, 'body')
    })
  }
  return checks
}

/** The first condition an override fails for a request (null: it matches). */
function firstFailure(
  stored: Stored,
  request: MatchRequest,
  methods: ReadonlySet<string> | null,
): string | null | typeof NEEDS_BODY {
  if (!methodMatches(stored.method, request.method, methods)) return 'method'
  if (!stored.matches(segmentsOf(request))) return 'path'
  for (const check of conditions(stored, request, methods).slice(2)) {
    const failed = check()
    if (failed !== null) return failed
  }
  return null
}

/**
 * Whether an override's method condition holds: HEAD is matched by GET overrides; a
 * method-less one matches the route's methods (`methods`), or any on a path the API lacks.
 */
function methodMatches(
  wanted: string | undefined,
  method: string,
  methods: ReadonlySet<string> | null,
): boolean {
  if (wanted === undefined)
    return methods === null || methods.has(method === 'HEAD' ? 'GET' : method)
  return wanted === method || (wanted === 'GET' && method === 'HEAD')
}

/**
 * Where `actual` stops containing `expected` (null when it does): every key of an expected
 * object present in the actual one with a matching value, recursively; arrays and scalars equal.
 */
export function containsAt(actual: unknown, expected: unknown, path: string): string | null {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return path
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key}`
      const failed = containsAt(actual[key], value, `${path}.${key}`)
      if (failed !== null) return failed
    }
    return null
  }
  return jsonEqual(actual, expected) ? null : path
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Keys of a request body's objects, counted once (a body is compared with every override). */
const keyCounts = new WeakMap<object, number>()
function keyCount(value: object): number {
  let count = keyCounts.get(value)
  if (count === undefined) keyCounts.set(value, (count = Object.keys(value).length))
  return count
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]))
  if (isPlainObject(a) && isPlainObject(b)) {
    // `b` is the override's (small); `a` the request's, its keys counted once for all overrides.
    const keys = Object.keys(b)
    return (
      keyCount(a) === keys.length &&
      keys.every((key) => Object.hasOwn(a, key) && jsonEqual(a[key], b[key]))
    )
  }
  return false
}

/**
 * The answer of an override's response (CONTRACT C2); `delayMs` is waited by the caller. A
 * status that always carries a header (401's `WWW-Authenticate`, 405's `Allow`, 429's
 * `Retry-After`) gets it unless the override gives its own. Headers are checked again here
 * (they were at creation): an answer with a header HTTP cannot carry becomes a 500 envelope
 * instead of a crash while writing.
 */
export function overrideAnswer(
  response: OverrideResponse,
  allow: string,
  /** The API's business codes' messages by number: a given `code` without `message` says its own. */
  messages: ReadonlyMap<number, string> = new Map(),
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
      body: noBody ? null : JSON.stringify(response.body),
      ...marks,
    }
  }
  const known = codeForStatus[status]
  const code = status < 300 ? 0 : (response.code ?? (known ? codes[known].code : status * 100))
  const message =
    response.message ??
    (status < 300
      ? 'success'
      : ((response.code !== undefined ? messages.get(response.code) : undefined) ??
        (known ? codes[known].message : 'error')))
  const envelope = { code, message, data: status < 300 ? (response.data ?? null) : null }
  return {
    status,
    code,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: noBody ? null : JSON.stringify(envelope),
    ...marks,
  }
}
