import { ApiError } from '../../contract/api-error.js'
import { clip } from '../../contract/params.js'
import type { Catalog } from '../../resources/catalog.js'
import type { MatchRequest } from '../../state/overrides/index.js'
import { NEEDS_BODY, NO_JSON, overrideAnswer } from '../../state/overrides/index.js'
import {
  BODY_LIMIT,
  declaredOver,
  jsonShapeExceeds,
  MAX_BODY_KEYS,
  MAX_JSON_DEPTH,
  readJsonBody,
  sentAsJson,
} from '../body.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import type { Operation } from '../operation.js'
import type { Route } from '../router.js'
import { allowHeader } from '../router.js'
import { noRoute } from './errors.js'
import { sleep } from './delay.js'

/**
 * Overrides (CONTRACT C2): an override matching the request answers instead of the operation,
 * after routing, authentication and permission on a path of the API (a method the route lacks
 * is 405); without a token on a path the API lacks (a stub). Costs nothing when the sandbox has
 * none; reads the body only when an override's body condition needs it.
 */
export const override: Step<Context, Answer> = {
  name: 'override',
  run(c, next) {
    const { overrides } = c.instance
    // On a path of the API, routing comes first (CONTRACT B4, C2): a method the route lacks is
    // 405 whatever an override names; on a path the API lacks, any method may be stubbed.
    if (overrides.size === 0 || (c.match !== null && c.operation === null)) return next(c)
    // A method-less override applies to the route's methods; on a path the API lacks, to any.
    const methods = c.match === null ? null : routeMethods(c.match.route)
    const found = overrides.find(matchRequest(c), methods)
    if (found === null) return next(c)
    return (async () => {
      let match = found
      if (match === NEEDS_BODY) {
        const again = overrides.find(matchRequest(c, await jsonForMatching(c)), methods)
        if (again === null || again === NEEDS_BODY) return next(c)
        match = again
      }
      const { override, response } = overrides.take(match)
      c.overrideId = override.id
      // What the client sent is kept for verification, when it is JSON (else just not journaled).
      if (c.body === undefined && BODY_METHODS.has(c.request.method)) {
        try {
          await readJsonBody(c, { seen: c, maxKeys: MAX_BODY_KEYS })
        } catch {
          // Not JSON, too large or cut off: the override answers all the same.
        }
      }
      const delay = response.delayMs ?? 0
      if (delay > 0) {
        c.request.willWait?.()
        await sleep(delay)
      }
      const allow = c.match === null ? overrides.methodsAt(c.path) : allowHeader(c.match.route)
      return overrideAnswer(response, allow, messagesOf(c.host.catalog), c.conflict)
    })()
  },
}

/**
 * 404 for a path the API lacks: when the sandbox has overrides, the message and the journal
 * name the one the request came closest to and the first condition it failed (near misses).
 */
export function noRouteFor(c: Context): Answer {
  const { overrides } = c.instance
  if (overrides.size === 0) throw noRoute(c.request)
  const withMiss = (body: unknown): never => {
    const miss = overrides.nearMiss(matchRequest(c, body))
    if (!miss) throw noRoute(c.request)
    c.nearMiss = { overrideId: miss.overrideId, reason: miss.reason }
    throw ApiError.of(
      'notFound',
      `no route for ${c.request.method} ${clip(c.request.url.pathname, 100)}; the closest override (${miss.overrideId}: ${miss.method ?? 'any method'} ${clip(miss.path, 60)}) did not match on ${miss.reason}`,
    )
  }
  // The body is read only when an override's body condition could tell.
  if (!overrides.matchesBodies) withMiss(NO_JSON)
  return jsonForMatching(c).then(withMiss)
}

/** The methods that carry a body. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

/** The request's JSON body for an override's body condition: the value, or NO_JSON. */
async function jsonForMatching(c: Context): Promise<unknown> {
  if (!BODY_METHODS.has(c.request.method) && c.request.header('content-length') === null)
    return NO_JSON
  // Past the limit by its Content-Length, compressed or not JSON by its type: no JSON to match
  // (the API answers it 413 or 415), and not read (nor asked for).
  if (declaredOver(c.request, BODY_LIMIT) || !sentAsJson(c.request)) return NO_JSON
  let bytes: Uint8Array | 'too-large' | 'busy'
  try {
    bytes = await c.readBody(BODY_LIMIT)
  } catch {
    return NO_JSON
  }
  if (typeof bytes === 'string' || bytes.byteLength === 0) return NO_JSON
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    // Nested or wide past the bounds, it is no JSON to match (the operation answers it 400 or 413).
    if (jsonShapeExceeds(text, MAX_JSON_DEPTH, undefined, MAX_BODY_KEYS) !== null) return NO_JSON
    const value: unknown = JSON.parse(text)
    c.body = value
    c.bodyText = text
    return value
  } catch {
    return NO_JSON
  }
}

/** What overrides match a request against. */
function matchRequest(c: Context, body?: unknown): MatchRequest {
  return {
    method: c.request.method,
    path: c.path,
    url: c.request.url,
    header: (name) => c.request.header(name),
    body,
  }
}

/** The message of each business code of an API, by number: an override's `code` brings its words. */
const codeMessages = new WeakMap<Catalog, ReadonlyMap<number, string>>()
function messagesOf(catalog: Catalog): ReadonlyMap<number, string> {
  let messages = codeMessages.get(catalog)
  if (!messages) {
    messages = new Map(Object.values(catalog.allCodes).map(({ code, message }) => [code, message]))
    codeMessages.set(catalog, messages)
  }
  return messages
}

/** The methods of a route, HEAD with GET: what a method-less override on it applies to. */
const methodsOfRoute = new WeakMap<Route<Operation>, ReadonlySet<string>>()
function routeMethods(route: Route<Operation>): ReadonlySet<string> {
  let methods = methodsOfRoute.get(route)
  if (!methods) {
    methods = new Set(Object.keys(route.operations))
    methodsOfRoute.set(route, methods)
  }
  return methods
}
