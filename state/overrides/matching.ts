import type { Override } from './schemas.js'
import type { SegmentPattern } from './paths.js'
import { pathSegments } from './paths.js'

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
  /** The query's values by name, read once for every condition ({@link hasQueryValue}). */
  queryValues?: ReadonlyMap<string, string | ReadonlySet<string>>
}

/** A request's path segments, split on first use. */
function segmentsOf(request: MatchRequest): readonly string[] | null {
  if (request.segments === undefined) request.segments = pathSegments(request.path)
  return request.segments
}

/**
 * A request's query values by name, read on first use: a parameter given once is its value, one
 * given more often the set of them (a Set for each of 100,000 parameters made a 1 MB query's
 * near miss mostly garbage collection).
 */
function queryValuesOf(request: MatchRequest): ReadonlyMap<string, string | ReadonlySet<string>> {
  if (request.queryValues === undefined) {
    const values = new Map<string, string | Set<string>>()
    for (const [name, value] of request.url.searchParams) {
      const given = values.get(name)
      if (given === undefined) values.set(name, value)
      else if (typeof given === 'string') values.set(name, new Set([given, value]))
      else given.add(value)
    }
    request.queryValues = values
  }
  return request.queryValues
}

/** Whether the request's query gives `name` the value `value` (once or among others). */
function hasQueryValue(request: MatchRequest, name: string, value: string): boolean {
  const given = queryValuesOf(request).get(name)
  return given === value || (typeof given === 'object' && given.has(value))
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

/** An override as the store keeps it: what matching reads. */
export interface Stored extends Override {
  matches: (segments: readonly string[] | null) => boolean
  /** Its path's segments, split once: what near misses weigh a request's path against. */
  pattern: SegmentPattern
  /** The header conditions with lower-case names. */
  headerConditions?: Array<[string, string]>
  /** Estimated bytes it holds. */
  bytes: number
}

/** A check of one condition: null when it holds, else what failed. */
type Check = () => string | null | typeof NEEDS_BODY

/** The conditions of an override, in the order near misses report them. */
export function conditions(
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
      checks.push(() => (hasQueryValue(request, name, value) ? null : `query.${name}`))
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
export function firstFailure(
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
  const failed = mismatchIn(actual, expected)
  return failed === null ? null : `${path}${failed}`
}

/**
 * {@link containsAt}'s walk: where below `actual` it fails, written only on the way back from a
 * failure (a request is compared with every override on its path: a path made for each key
 * compared, and the keys listed, cost 400 conditions of 1,400 keys a second a request).
 */
function mismatchIn(actual: unknown, expected: unknown): string | null {
  if (!isPlainObject(expected)) return jsonEqual(actual, expected) ? null : ''
  if (!isPlainObject(actual)) return ''
  for (const [key, value] of entriesOf(expected)) {
    // Its own key only: `__proto__` read from a body without one is Object.prototype, which
    // contained the condition `{ "__proto__": {} }` (it matched every body).
    if (!Object.hasOwn(actual, key)) return `.${key}`
    const failed = mismatchIn(actual[key], value)
    if (failed !== null) return `.${key}${failed}`
  }
  return null
}

/** Lists a body condition's entries when it is stored (nested as deep as 64), so no request pays it. */
export function prepareCondition(condition: unknown): void {
  if (isPlainObject(condition))
    for (const [, value] of entriesOf(condition)) prepareCondition(value)
}

/** An override's condition object as entries, listed once (it never changes once stored). */
const conditionEntries = new WeakMap<object, Array<[string, unknown]>>()
function entriesOf(condition: Record<string, unknown>): Array<[string, unknown]> {
  let entries = conditionEntries.get(condition)
  if (!entries) conditionEntries.set(condition, (entries = Object.entries(condition)))
  return entries
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
