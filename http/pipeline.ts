import type { SandboxInstance } from '../state/instance.js'
import { drawDelay } from '../state/runtime-config.js'
import { IdsExhausted } from '../db/table.js'
import type { Catalog } from '../resources/catalog.js'
import { DataService } from '../resources/service.js'
import { ApiError } from '../contract/api-error.js'
import { authenticate } from './auth.js'
import { codes } from '../contract/codes.js'
import { readJsonBody } from './body.js'
import { dropped, failure, noContent } from '../contract/envelope.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { isPending } from '../contract/exchange.js'
import type { Operation, OperationContext, Principal } from './operation.js'
import { forcedError, parsePrefer } from './preferences.js'
import { clip, integerParameter, invalidParameter, rejectUnknown } from '../contract/params.js'
import type { Route } from './router.js'
import { allowHeader, methodNotAllowed } from './router.js'
import type { ApiRoutes } from './routes.js'
import { durably } from './durable.js'
import type { MatchRequest, NearMiss } from '../state/overrides.js'
import { NEEDS_BODY, NO_JSON, overrideAnswer } from '../state/overrides.js'
import { MAX_DELAY_MS } from '../state/runtime-config.js'
import { BODY_LIMIT } from './body.js'

/** What the pipeline needs from the sandbox that runs it. */
export interface PipelineHost {
  /** Where resources live: '' (the root) or e.g. '/api'. */
  readonly basePath: string
  /** The API's resources and the routes compiled from them. */
  readonly catalog: Catalog
  readonly routes: ApiRoutes
  /** The sandbox for an `X-Sandbox-Id` (null: the default one), created on first use. */
  instanceFor(name: string | null): SandboxInstance
  /** After each request to a sandbox: keeps the named sandboxes within their memory budget. */
  settle(instance: SandboxInstance): void
  /** Milliseconds since the epoch (a settable clock for tests). */
  now(): number
  /** Handles `/__sandbox/...` (the control API), or null when it is off. */
  control(request: ApiRequest, path: string, instance: SandboxInstance): Promise<ApiResponse> | null
  /** Handles the sandbox's own documents (`/openapi.json`), or null for other paths. */
  documents(request: ApiRequest, path: string): ApiResponse | null
  /** Called with anything unexpected thrown while handling a request (it answers 500). */
  onUnexpectedError(error: unknown): void
}

const CONTROL_PREFIX = '/__sandbox'
const NO_QUERY: URLSearchParams = new URLSearchParams()
const SANDBOX_ID = /^[A-Za-z0-9_.-]{1,64}$/
/** The methods that carry a body. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])
/** The methods that may change data: a successful one is saved and announced. */
export const WRITE_METHODS: ReadonlySet<string> = new Set([...BODY_METHODS, 'DELETE'])

/**
 * Handles one request from start to finish, in the order of checks of CONTRACT B4, and never
 * throws: every failure becomes an envelope, anything unexpected a 500 that leaks nothing.
 * Answers synchronously when nothing on the way waits (no body to read, no delay, no
 * override): most reads. A promise only when something does, so the Node server writes most
 * answers in the same tick, without the promise steps of an async chain.
 */
export function answer(
  host: PipelineHost,
  request: ApiRequest,
): ApiResponse | Promise<ApiResponse> {
  const requestId = request.requestId ?? requestIdFor(request.header('x-request-id'))
  let result: ApiResponse | Promise<ApiResponse>
  try {
    result = dispatch(host, request, requestId)
  } catch (error) {
    result = toErrorResponse(host, error)
  }
  if (!isPending(result)) return finish(request, requestId, result)
  return result.then(
    (response) => finish(request, requestId, response),
    (error: unknown) => finish(request, requestId, toErrorResponse(host, error)),
  )
}

/** Every answer carries the request id; a HEAD answer has no body. */
function finish(request: ApiRequest, requestId: string, response: ApiResponse): ApiResponse {
  response.headers['x-request-id'] = requestId
  if (request.method === 'HEAD') response.body = null
  return response
}

function dispatch(
  host: PipelineHost,
  request: ApiRequest,
  requestId: string,
): ApiResponse | Promise<ApiResponse> {
  const { pathname } = request.url
  const documents = host.documents(request, pathname)
  if (documents) return documents
  const isControl = pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`)
  const { basePath } = host
  const underBase = basePath === '' || pathname === basePath || pathname.startsWith(`${basePath}/`)
  if (!isControl && !underBase) throw noRoute(request)
  const instance = host.instanceFor(sandboxId(request))
  let result: ApiResponse | Promise<ApiResponse>
  try {
    if (isControl) {
      const answer = host.control(request, pathname.slice(CONTROL_PREFIX.length) || '/', instance)
      if (!answer) throw noRoute(request)
      result = answer
    } else {
      result = journaled(
        host,
        instance,
        request,
        requestId,
        pathname,
        pathname.slice(basePath.length) || '/',
      )
    }
  } catch (error) {
    host.settle(instance)
    throw error
  }
  if (isPending(result)) return result.finally(() => host.settle(instance))
  host.settle(instance)
  return result
}

/** Runs an API request and records it in the sandbox's journal. */
function journaled(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  requestId: string,
  pathname: string,
  path: string,
): ApiResponse | Promise<ApiResponse> {
  const seen: Seen = { at: host.now(), started: performance.now(), pathname, path, requestId }
  let result: ApiResponse | Promise<ApiResponse>
  try {
    const delay = delayHeader(request) ?? drawDelay(instance.config.delay, instance.delayRandom)
    result =
      delay > 0
        ? sleep(delay).then(() => route(host, instance, request, seen))
        : route(host, instance, request, seen)
  } catch (error) {
    result = toErrorResponse(host, error)
  }
  if (!isPending(result)) return record(instance, request, seen, result)
  return result.then(
    (response) => record(instance, request, seen, response),
    (error: unknown) => record(instance, request, seen, toErrorResponse(host, error)),
  )
}

/** Adds a request and its answer to the sandbox's journal (not a preflight); returns the answer. */
function record(
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
  response: ApiResponse,
): ApiResponse {
  if (request.method !== 'OPTIONS') {
    response.headers['x-request-id'] = seen.requestId
    instance.journal.add({
      at: seen.at,
      method: request.method,
      path: seen.pathname,
      apiPath: seen.path,
      search: request.url.search,
      durationMs: Math.round((performance.now() - seen.started) * 100) / 100,
      body: seen.body,
      overrideId: seen.overrideId,
      nearMiss: seen.nearMiss,
      requestHeaders: request.headers?.(),
      response,
    })
  }
  return response
}

/** What the journal keeps of a request besides its answer, gathered on the way. */
interface Seen {
  /** When it came (the sandbox's clock) and when it started (for its duration). */
  at: number
  started: number
  pathname: string
  /** The path under the base path. */
  path: string
  requestId: string
  body?: unknown
  bytes?: number
  overrideId?: number
  nearMiss?: NearMiss
  /** The raw body, once read (by an override's body condition, then by the operation). */
  raw?: Promise<Uint8Array | 'too-large' | 'busy'>
}

/** The request's body, read once: an override's body condition and the operation share it. */
function bodyOf(request: ApiRequest, seen: Seen): Pick<ApiRequest, 'header' | 'readBody'> {
  return {
    header: (name) => request.header(name),
    readBody: (limit) => (seen.raw ??= request.readBody(limit)),
  }
}

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
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    seen.body = value
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

/**
 * CONTRACT C2: the answer of an override matching the request; null (no promise) when none
 * does, so the common case costs nothing. A promise of null when an override's body condition
 * had to read the body and then did not match. `methods`: what a method-less override applies
 * to (the route's methods; null on a path the API lacks: any). `allow`: the 405 `Allow`.
 */
function overridden(
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
    return overrideAnswer(response, allow())
  })()
}

/**
 * 404 for a path the API lacks: when the sandbox has overrides, the message and the journal
 * name the one the request came closest to and the first condition it failed (C2 near misses).
 */
function noRouteFor(instance: SandboxInstance, request: ApiRequest, seen: Seen): Promise<never> {
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

/** The data service of a sandbox as its operations see it, made once per sandbox. */
const services = new WeakMap<SandboxInstance, DataService>()

function dataServiceOf(host: PipelineHost, instance: SandboxInstance): DataService {
  let service = services.get(instance)
  if (service?.store !== instance.store || service.catalog !== host.catalog) {
    service = new DataService(host.catalog, instance.store, () =>
      new Date(host.now()).toISOString(),
    )
    services.set(instance, service)
  }
  return service
}

/** The request after the delay: faults, routing, auth, overrides, then the operation. */
function route(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
): ApiResponse | Promise<ApiResponse> {
  const { config } = instance
  const { path } = seen
  if (config.dropRate > 0 || config.errorRate > 0) {
    const roll = instance.faultRandom()
    if (roll < config.dropRate) return dropped()
    if (roll < config.dropRate + config.errorRate) {
      const name = instance.faultRandom() < 0.5 ? 'internalError' : 'serviceUnavailable'
      throw ApiError.of(name, `${codes[name].message} (injected fault)`)
    }
  }
  // CONTRACT C2: an override answers a path the API lacks (a stub) without a token; on an API
  // path, after routing, authentication and permission, and before anything else.
  const match = host.routes.router.match(path)
  if (!match) {
    const stub = overridden(instance, request, seen, null, () => instance.overrides.methodsAt(path))
    if (stub === null) return noRouteFor(instance, request, seen)
    return stub.then((answer) => answer ?? noRouteFor(instance, request, seen))
  }
  if (request.method === 'OPTIONS') return noContent({ allow: allowHeader(match.route) })
  const allow = () => allowHeader(match.route)
  const operation =
    match.route.operations[(request.method === 'HEAD' ? 'GET' : request.method) as 'GET']
  if (!operation) {
    // An override naming a method the route lacks is a stub of that method (no token needed);
    // a method-less one applies to the route's methods only: 405 comes first.
    const stub = overridden(instance, request, seen, routeMethods(match.route), allow)
    if (stub === null) throw methodNotAllowed(match.route, request.method)
    return stub.then(
      (answer) => answer ?? Promise.reject(methodNotAllowed(match.route, request.method)),
    )
  }
  const principal =
    operation.auth === false
      ? null
      : authenticate(request.header('authorization'), instance, host.catalog.accounts)
  // A forced response (Prefer: code=…) precedes permission, as in Prism.
  const preferences = parsePrefer(request)
  if (preferences.code !== undefined) {
    const forced = forcedError(preferences, allow(), operation.conflict)
    if (forced) throw forced
  }
  if (principal) authorize(operation, principal, match.params, host.routes.ownParam)
  const override = overridden(instance, request, seen, routeMethods(match.route), allow)
  if (override === null)
    return run(
      host,
      instance,
      request,
      seen,
      operation,
      match.params,
      principal,
      preferences.representation,
    )
  return override.then(
    (answer) =>
      answer ??
      run(
        host,
        instance,
        request,
        seen,
        operation,
        match.params,
        principal,
        preferences.representation,
      ),
  )
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

/** The operation itself, after routing, auth and overrides: ids, query, the run, and its saving. */
function run(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
  operation: Operation,
  params: Record<string, string>,
  principal: Principal | null,
  wantsRepresentation: boolean,
): ApiResponse | Promise<ApiResponse> {
  const { config } = instance
  const writes = operation.changesData ?? WRITE_METHODS.has(request.method)
  const ids = pathIds(params)
  // Without a query string, no URLSearchParams is made for the request (operations only read it).
  const query = request.url.search === '' ? NO_QUERY : request.url.searchParams
  if (config.strict && !operation.docs.query) rejectUnknown(query, [])
  const context: OperationContext = {
    request,
    instance,
    data: dataServiceOf(host, instance),
    ids,
    query,
    principal,
    strict: config.strict,
    basePath: host.basePath,
    wantsRepresentation,
    async readJson() {
      const body = await readJsonBody(
        bodyOf(request, seen),
        undefined,
        (bytes) => (seen.bytes = bytes),
      )
      seen.body = body
      return body
    },
  }
  const result = operation.run(context)
  if (!writes) return result
  const saved = (response: ApiResponse) => {
    if (response.status >= 300) return response
    instance.store.changed()
    instance.wrote(seen.bytes ?? 0)
    return durably(instance, response)
  }
  return isPending(result) ? result.then(saved) : saved(result)
}

/**
 * 403 / 40300 unless the caller is an admin or the operation's permission lets them in:
 * `anyone`, or `own` when the account id in the path (`ownParam`) is theirs (CONTRACT B4).
 */
function authorize(
  operation: Operation,
  principal: Principal,
  params: Record<string, string>,
  ownParam: string,
): void {
  if (principal.admin || operation.permission === 'anyone') return
  if (operation.permission === 'own' && params[ownParam] === String(principal.userId)) return
  throw ApiError.of('permissionDenied')
}

/** Path ids must be positive integers (400 / 40000), e.g. `GET /users/create`. */
function pathIds(params: Record<string, string>): Record<string, number> {
  const ids: Record<string, number> = {}
  for (const name in params) {
    const raw = params[name]!
    const value = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN
    if (!Number.isSafeInteger(value))
      throw invalidParameter(`${name} must be a positive integer, got '${clip(raw)}'`)
    ids[name] = value
  }
  return ids
}

function sandboxId(request: ApiRequest): string | null {
  const name = request.header('x-sandbox-id')
  if (name === null) return null
  if (!SANDBOX_ID.test(name)) {
    throw invalidParameter(
      `X-Sandbox-Id must be 1-64 characters of A-Z a-z 0-9 _ . -, got '${clip(name)}'`,
    )
  }
  return name
}

function delayHeader(request: ApiRequest): number | undefined {
  const raw = request.header('x-sandbox-delay')
  if (raw === null) return undefined
  return integerParameter('X-Sandbox-Delay', raw.trim(), 0, MAX_DELAY_MS)
}

function noRoute(request: ApiRequest): ApiError {
  return ApiError.of(
    'notFound',
    `no route for ${request.method} ${clip(request.url.pathname, 100)}`,
  )
}

function toErrorResponse(host: PipelineHost, error: unknown): ApiResponse {
  if (error instanceof ApiError) return failure(error)
  if (error instanceof IdsExhausted) {
    return failure(
      ApiError.invalid([`id: ${error.message}; delete ${error.table} or reset the data`]),
    )
  }
  host.onUnexpectedError(error)
  return failure(ApiError.of('internalError'))
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * New request ids: UUID-shaped, a random UUID drawn once with its last 12 hex digits replaced
 * by a counter, so an id is unique within the process (and, by the random part, across
 * processes) and costs a counter step instead of a random UUID's string building per request.
 */
let idPrefix = ''
let idCounter = 0

function newRequestId(): string {
  if (idPrefix === '' || idCounter > 0xffff_ffff_ffff) {
    const uuid = randomUuid()
    idPrefix = uuid.slice(0, 24)
    idCounter = Number.parseInt(uuid.slice(24, 32), 16)
  }
  return idPrefix + (idCounter++).toString(16).padStart(12, '0')
}

/**
 * A version 4 UUID from `Math.random` (seeded by the engine from the system's entropy): enough
 * for ids that must not repeat, never for secrets. Not `crypto.randomUUID`: loading Node's web
 * crypto costs a fresh test file's first answer ~1 ms, and pages served over plain http from
 * another machine lack it.
 */
function randomUuid(): string {
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => Math.floor(Math.random() * 16).toString(16)).join('')
  const variant = '89ab'[Math.floor(Math.random() * 4)]!
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`
}

/** The client's `X-Request-Id` when it is printable ASCII (1-200 chars), else a new one. */
export function requestIdFor(sent: string | null | undefined): string {
  if (typeof sent === 'string' && /^[\x21-\x7e]{1,200}$/.test(sent)) return sent
  return newRequestId()
}
