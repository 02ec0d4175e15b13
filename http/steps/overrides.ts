import { ApiError } from '../../contract/api-error.js'
import type { ApiRequest, ApiResponse } from '../../contract/exchange.js'
import { clip } from '../../contract/params.js'
import type { Catalog } from '../../resources/catalog.js'
import type { SandboxInstance } from '../../state/instance.js'
import type { PipelineHost } from '../pipeline.js'
import type { MatchRequest } from '../../state/overrides.js'
import { NEEDS_BODY, NO_JSON, overrideAnswer } from '../../state/overrides.js'
import { BODY_LIMIT, jsonDepthExceeds, MAX_JSON_DEPTH, readJsonBody } from '../body.js'
import { noRoute } from './errors.js'
import { sleep } from './faults.js'
import type { Seen } from './seen.js'
import { bodyOf } from './seen.js'

/**
 * Step 7, overrides (CONTRACT C2): on a path of the API, after routing, authentication and
 * permission, an override matching the request answers instead of the operation; on a path the
 * API lacks, it answers without a token, and when none matches the 404 names the closest one.
 */

/** The methods that carry a body. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

/** The request's JSON body for an override's body condition: the value, or NO_JSON. */
async function jsonForMatching(request: ApiRequest, seen: Seen): Promise<unknown> {
  if (!BODY_METHODS.has(request.method) && request.header('content-length') === null) return NO_JSON
  let bytes: Uint8Array | 'too-large' | 'busy'
  try {
    bytes = await bodyOf(request, seen).readBody(BODY_LIMIT)
  } catch {
    return NO_JSON
  }
  if (typeof bytes === 'string' || bytes.byteLength === 0) return NO_JSON
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    // Nested past the bound, it is no JSON to match (the operation answers it 400 / 40004).
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return NO_JSON
    const value: unknown = JSON.parse(text)
    seen.body = value
    seen.bodyText = text
    return value
  } catch {
    return NO_JSON
  }
}

/** What overrides match a request against. */
function matchRequest(request: ApiRequest, seen: Seen, body?: unknown): MatchRequest {
  return {
    method: request.method,
    path: seen.path,
    url: request.url,
    header: (name) => request.header(name),
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

/**
 * The answer of an override matching the request; null (no promise) when none does, so the
 * common case costs nothing. A promise of null when an override's body condition had to read
 * the body and then did not match. `methods`: what a method-less override applies to (the
 * route's methods; null on a path the API lacks: any). `allow`: the 405 `Allow`.
 */
export function overridden(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
  methods: ReadonlySet<string> | null,
  allow: () => string,
): Promise<ApiResponse | null> | null {
  const { overrides } = instance
  if (overrides.size === 0) return null
  const found = overrides.find(matchRequest(request, seen), methods)
  if (found === null) return null
  return (async () => {
    let match = found
    if (match === NEEDS_BODY) {
      const body = await jsonForMatching(request, seen)
      const again = overrides.find(matchRequest(request, seen, body), methods)
      if (again === null || again === NEEDS_BODY) return null
      match = again
    }
    const { override, response } = overrides.take(match)
    seen.overrideId = override.id
    // What the client sent is kept for verification, when it is JSON (else just not journaled).
    if (seen.body === undefined && BODY_METHODS.has(request.method)) {
      try {
        seen.body = await readJsonBody(bodyOf(request, seen))
      } catch {
        // Not JSON, too large or cut off: the override answers all the same.
      }
    }
    const delay = response.delayMs ?? 0
    if (delay > 0) await sleep(delay)
    return overrideAnswer(response, allow(), messagesOf(host.catalog))
  })()
}

/**
 * 404 for a path the API lacks: when the sandbox has overrides, the message and the journal
 * name the one the request came closest to and the first condition it failed (near misses).
 */
export function noRouteFor(
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
): Promise<never> {
  const { overrides } = instance
  if (overrides.size === 0) throw noRoute(request)
  const withMiss = (body: unknown): never => {
    const miss = overrides.nearMiss(matchRequest(request, seen, body))
    if (!miss) throw noRoute(request)
    seen.nearMiss = miss
    throw ApiError.of(
      'notFound',
      `no route for ${request.method} ${clip(request.url.pathname, 100)}; the closest override (${miss.overrideId}) did not match on ${miss.reason}`,
    )
  }
  // The body is read only when an override's body condition could tell.
  if (!overrides.matchesBodies) withMiss(NO_JSON)
  return jsonForMatching(request, seen).then(withMiss)
}
