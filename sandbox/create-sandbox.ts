import type { HttpHandler } from 'msw'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { clip } from '../contract/params.js'
import { OptionsError } from '../contract/option-spec.js'
import type { Snapshot } from '../db/store.js'
import { checkSnapshot, unwrapped } from '../resources/document.js'
import { seededDocument } from '../resources/seed.js'
import type { Store } from '../db/store.js'
import { freezeDocument } from '../db/store.js'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition, Named } from '../resources/define.js'
import { apiRoutes } from '../http/routes.js'
import { handleControl, journalFilterSchema } from '../http/control.js'
import { sandboxIdProblem } from '../http/steps/sandbox.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { fromFetchRequest } from '../contract/exchange.js'
import type { PipelineHost } from '../http/pipeline.js'
import { answer, CONTROL_PREFIX, isControlPath } from '../http/pipeline.js'
import { SandboxInstance, withSequences } from '../state/instance.js'
import type { JournalEntry, JournalFilter } from '../state/journal.js'
import { filterUnder } from '../state/journal.js'
import type { Override, OverrideInput } from '../state/overrides/index.js'
import type { ParsedOverride } from '../state/overrides/index.js'
import {
  OverrideBoundError,
  Overrides,
  overridesListTooLong,
  parseOverride,
} from '../state/overrides/index.js'
import { claims, createHandlers, toFetchResponse } from './msw-handlers.js'
import { openApiResponse } from './openapi-response.js'
import type { ResolvedOptions, SandboxOptions } from './options.js'
import { resolveOptions } from './options.js'
import { InstanceRegistry } from '../state/registry.js'
import type { Scenario, ScenarioSummary } from '../state/scenarios.js'
import { ScenarioSet, unknownScenario } from '../state/scenarios.js'
import { isProven } from '../resources/catalog.js'
import type { RuntimeConfig, RuntimeConfigInput } from '../state/runtime-config.js'
import { runtimeConfigPatchSchema } from '../state/runtime-config.js'
import { flag } from './option-table.js'

/** The whole data set of an API's resources as one JSON document, by resource name. */
export type ApiDocument<D extends readonly AnyResourceDefinition[]> = Named<D, 'records'>

/** A document plus the id sequences, so a restore continues exactly where the snapshot was. */
export type ApiSnapshot<D extends readonly AnyResourceDefinition[]> = ApiDocument<D> & {
  nextIds: Named<D, 'count'>
}

/** One sandbox's data: a table per resource, also as a property (`db.users`), typed by its schema. */
export type ApiStore<D extends readonly AnyResourceDefinition[]> = {
  toJSON(): ApiDocument<D>
  snapshot(): ApiSnapshot<D>
} & Store &
  Readonly<Named<D, 'table'>>

/** A running sandbox of an API (`D`: its resources): its MSW handlers, its data, its controls. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a sandbox of an API not known by type
export interface Sandbox<D extends readonly AnyResourceDefinition[] = any> {
  /** Resolved options (defaults filled in). */
  readonly options: ResolvedOptions
  /** MSW request handlers: `setupServer(...sandbox.handlers)` or `setupWorker(...)`. */
  readonly handlers: HttpHandler[]
  /** The default sandbox's data: an indexed table per resource (`db.users`, `db.table(name)`). */
  readonly db: ApiStore<D>
  /** Answers a Fetch API request without any network, as the handlers would. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>
  /** Answers a transport-neutral request (what the Node server uses). */
  handle(request: ApiRequest): Promise<ApiResponse>
  /** Whether a URL is the sandbox's to answer (the predicate of its MSW handler). */
  claims(url: URL): boolean
  /**
   * Back to the scenario's data (the seeded data in `default`); sessions, journal, overrides and
   * settings back to the scenario's, and every `X-Sandbox-Id` sandbox dropped.
   */
  reset(): void
  /**
   * Puts the default sandbox in a scenario (CONTRACT C5): its data, overrides and settings; a
   * RangeError naming the known ones (closest first) for a name it lacks.
   *
   * @example
   * beforeEach(() => sandbox.useScenario('empty'))
   */
  useScenario(name: string): void
  /** The default sandbox's scenario (`default` unless one was chosen). */
  readonly scenario: string
  /** The scenarios a sandbox can be put in: `default`, the API's, the `scenarios` option's. */
  readonly scenarios: readonly ScenarioSummary[]
  /** A copy of the default sandbox's data and id sequences (cheap: records are immutable). */
  snapshot(): ApiSnapshot<D>
  /** Replaces the default sandbox's data with a snapshot or a validated document. */
  restore(snapshot: ApiSnapshot<D> | ApiDocument<D>): void
  /** The default sandbox's runtime settings. */
  readonly config: RuntimeConfig
  /** Changes runtime settings of the default sandbox; returns them. */
  configure(changes: RuntimeConfigInput): RuntimeConfig
  /**
   * The default sandbox's request journal, oldest first; `method`, `path` (concrete or a route
   * template such as `/users/{user_id}/orders`, relative to the base path) and `status` filter.
   */
  requests(filter?: JournalFilter): readonly JournalEntry[]
  /**
   * Makes a route of the default sandbox answer something else (CONTRACT C2), until removed
   * or `times` matching requests; validated as `POST /__sandbox/overrides` (TypeError naming
   * the field). Returns the stored override with `remove()`.
   *
   * @example
   * const down = sandbox.override({ method: 'GET', path: '/users', times: 1, response: { status: 503 } })
   */
  override(input: OverrideInput): Override & { remove(): boolean }
  /** The default sandbox's overrides, oldest first. */
  readonly overrides: readonly Override[]
  /** The sandbox serving an `X-Sandbox-Id` (created on first use), or the default one. */
  instance(name?: string | null): SandboxInstance
}

/**
 * Creates a sandbox of an API (`options.api`, see `defineApi`): seeded data and the handlers
 * that serve it. The package's `createSandbox` is this with the Shop API as the default.
 *
 * @example
 * const sandbox = createApiSandbox({ api: myApi, baseUrl: 'https://api.example.test' })
 * const server = setupServer(...sandbox.handlers)
 */
/**
 * The base path and the OpenAPI document's path must leave the API and the control API
 * reachable: the base path not inside the control API's `/__sandbox`, the document's path on
 * no route of either (it is answered first, and would hide it).
 */
function checkPaths(
  { basePath, openApiPath }: ResolvedOptions,
  routes: ReturnType<typeof apiRoutes>,
): void {
  if (isControlPath(basePath))
    throw new OptionsError(
      'sandbox',
      `baseUrl (${flag('basePath')}): ${basePath} is inside the control API (${CONTROL_PREFIX}); pick another base path, like /api`,
    )
  if (openApiPath === null) return
  const underBase =
    basePath === ''
      ? openApiPath
      : openApiPath === basePath || openApiPath.startsWith(`${basePath}/`)
        ? openApiPath.slice(basePath.length) || '/'
        : null
  if (isControlPath(openApiPath) || (underBase !== null && routes.router.match(underBase)))
    throw new OptionsError(
      'sandbox',
      `openApiPath: ${openApiPath} is ${isControlPath(openApiPath) ? `inside the control API (${CONTROL_PREFIX})` : 'a route of the API, which the document would hide'}; pick another path, like /openapi.json`,
    )
}

export function createApiSandbox<
  const A extends ApiDefinition,
  const R extends readonly AnyResourceDefinition[] = [],
>(options: SandboxOptions<A> & { api: A; resources?: R }): Sandbox<[...A['resources'], ...R]> {
  const resolved = resolveOptions(options)
  const { catalog } = resolved
  const routes = apiRoutes(catalog)
  checkPaths(resolved, routes)
  // Frozen: every X-Sandbox-Id sandbox and every reset loads it again (db/table.ts `load`).
  const seed = seededDocument(
    catalog,
    { ...resolved.counts, seed: resolved.seed },
    options.onProgress,
  )
  const issued = new WeakSet<object>()
  const tables = catalog.resources.map((resource) => resource.table)
  // The overrides every sandbox starts with, validated once, each naming its place when bad.
  const given: unknown = options.overrides ?? []
  if (!Array.isArray(given))
    throw new OptionsError('sandbox', 'overrides: must be a list of overrides')
  // Counted before any is read: a list of a billion holes took minutes to walk.
  const most = resolved.limits.overrides.count
  if (given.length > most)
    throw new RangeError(
      `Invalid override overrides[${most}]: ${overridesListTooLong(given.length, most)}`,
    )
  const startOverrides = Array.from(given, (input: unknown, index) =>
    parseOverride(input, `Invalid override overrides[${index}]`, resolved.limits.overrides.bytes),
  )
  const fits = new Overrides(resolved.limits.overrides)
  for (const [index, override] of startOverrides.entries()) {
    try {
      fits.add(override)
    } catch (error) {
      throw new RangeError(`Invalid override overrides[${index}]: ${(error as Error).message}`, {
        cause: error,
      })
    }
  }
  // The scenarios (CONTRACT C5): the API's, then the sandbox's own, checked now, each naming
  // the scenario and the field when bad.
  const scenarios = new ScenarioSet({
    catalog,
    tables,
    seed,
    definitions: [...(options.api.scenarios ?? []), ...((options.scenarios as unknown[]) ?? [])],
    apiDefinitions: options.api.scenarios?.length ?? 0,
    limits: resolved.limits.overrides,
    startOverrides,
    proven: new Set(isProven(options.api) ? (options.api.scenarios ?? []) : []),
  })
  const startScenario = scenarioOption(scenarios, resolved.scenario)
  const makeInstance = (name: string | null, scenario = startScenario) =>
    new SandboxInstance({
      name,
      tables,
      scenario,
      seedNumber: resolved.seed,
      config: resolved.config,
      tokenTtl: resolved.tokenTtl,
      clock: resolved.now,
      limits: resolved.limits,
      onProgress: name === null ? options.onProgress : undefined,
      overrides: startOverrides,
    })
  const registry = new InstanceRegistry(
    makeInstance(null),
    resolved.maxSandboxes,
    makeInstance,
    resolved.limits.sandboxesMemory,
  )
  const host: PipelineHost = {
    basePath: resolved.basePath,
    catalog,
    routes,
    instanceFor: (name, scenario) =>
      registry.enter(name, scenario === null ? undefined : scenarios.named(scenario)),
    scenarioReady: (name) => scenarios.named(name).prepared(),
    settle: (instance) => registry.settle(instance),
    now: resolved.now,
    control: (request, path, instance) =>
      resolved.control
        ? handleControl(request, path, instance, {
            sandboxes: () => registry.all(),
            catalog,
            basePath: resolved.basePath,
            scenarios,
          })
        : null,
    documents: (request, path) =>
      path === resolved.openApiPath ? openApiResponse(request, resolved) : null,
    onUnexpectedError: resolved.onUnexpectedError,
    // A plain property, not a spread: this object is read on every request.
    unmatched: resolved.passthrough ? passingThrough : undefined,
  }
  const answerRequest = (request: ApiRequest) => answer(host, request)
  const handleRequest = (request: ApiRequest) =>
    new Promise<ApiResponse>((resolve) => resolve(answerRequest(request)))
  const claim = (url: URL) => claims({ ...resolved, roots: routes.roots }, url)
  const main = registry.defaultInstance

  const sandbox: Sandbox<[...A['resources'], ...R]> = {
    options: resolved,
    handlers: createHandlers(claim, handleRequest, { onError: resolved.onUnexpectedError }),
    db: main.store as unknown as ApiStore<[...A['resources'], ...R]>,
    handle: handleRequest,
    claims: claim,
    async fetch(input, init) {
      const request = new Request(
        typeof input === 'string' ? new URL(input, 'http://localhost') : input,
        init,
      )
      // As fetch does: aborted before it is sent, it is not sent; aborted while it is answered,
      // the caller stops waiting (what was asked for may be done, as on a server). Listening
      // costs a request ~5 µs: only a signal given can abort.
      const signal = init?.signal ?? (input instanceof Request ? input.signal : null)
      signal?.throwIfAborted()
      const answered = handleRequest(fromFetchRequest(request))
      if (!signal) return toFetchResponse(await answered, resolved.onUnexpectedError)
      const answer = await new Promise<ApiResponse>((resolve, reject) => {
        const aborted = () => reject(signal.reason)
        signal.addEventListener('abort', aborted, { once: true })
        answered.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted))
      })
      return toFetchResponse(answer, resolved.onUnexpectedError)
    },
    useScenario(name) {
      const scenario = scenarios.get(String(name))
      if (!scenario) throw new RangeError(unknownScenario(String(name), scenarios.names))
      if (scenario.ready() !== null)
        throw new Error(
          `scenario '${scenario.name}' generates its data with faker, not loaded yet in this page: switch with PUT /__sandbox/scenario, or start with startSandbox({ scenario: '${scenario.name}' })`,
        )
      main.useScenario(scenario)
    },
    get scenario() {
      return main.scenario.name
    },
    get scenarios() {
      return scenarios.list().map((scenario) => scenario.summary())
    },
    reset() {
      main.reset()
      registry.clear()
    },
    snapshot() {
      // Frozen, so what restore() trusts without validation is exactly what it handed out.
      const snapshot = freezeDocument(main.store.snapshot())
      issued.add(snapshot)
      return snapshot as unknown as ApiSnapshot<[...A['resources'], ...R]>
    },
    restore(snapshot) {
      if (issued.has(snapshot)) return main.store.restore(snapshot as unknown as Snapshot)
      // A document as GET /__sandbox/db answers it, envelope and all, as PUT takes it back.
      const check = checkSnapshot(catalog, unwrapped(snapshot))
      if (!check.ok) throw new TypeError(`Cannot restore: ${check.problem}`)
      main.store.restore(withSequences(check.document, main.store))
    },
    get config() {
      return { ...main.config }
    },
    configure(changes) {
      // A field it does not know, `__proto__` too (JSON.parse gives it as an own key, and zod's
      // copy drops it), is refused as PATCH /__sandbox/config refuses it: not dropped silently.
      if (typeof changes === 'object' && changes !== null && !Array.isArray(changes)) {
        const known = Object.keys(runtimeConfigPatchSchema().shape)
        const unknown = Object.keys(changes).filter((key) => !known.includes(key))
        if (unknown.length > 0)
          throw new TypeError(
            `Invalid settings: ${unknown.map((key) => `${clip(key)}: is not a known field`).join('; ')}`,
          )
      }
      const parsed = safeParseReporting(runtimeConfigPatchSchema(), changes)
      if (!parsed.success) {
        throw new TypeError(
          `Invalid settings: ${parsed.error.issues.map((issue) => describeIssue(issue, 'settings')).join('; ')}`,
        )
      }
      return { ...main.configure(parsed.data) }
    },
    requests(filter) {
      if (filter === undefined) return main.journal.entries()
      const parsed = safeParseReporting(journalFilterSchema(), filter)
      if (!parsed.success) {
        throw new TypeError(
          `Invalid requests filter: ${parsed.error.issues.map((issue) => describeIssue(issue, 'filter')).join('; ')}`,
        )
      }
      return main.journal.matching(filterUnder(parsed.data as JournalFilter, resolved.basePath))
    },
    override(input) {
      const parsed = parseOverride(input, 'Invalid override', main.overrides.limits.bytes)
      const stored = addOverride(main, parsed)
      // Frozen copies: an override changes by removing it and adding another.
      return Object.freeze({ ...stored, remove: () => main.overrides.remove(stored.id) })
    },
    get overrides() {
      return main.overrides.list().map((stored) => Object.freeze(stored))
    },
    instance(name = null) {
      // The names X-Sandbox-Id may give, as over HTTP.
      const problem = name === null ? null : sandboxIdProblem(name)
      if (problem) throw new TypeError(`Invalid sandbox name: ${problem}`)
      return registry.get(name)
    },
  }
  answers.set(sandbox as unknown as Sandbox, answerRequest)
  hosts.set(sandbox as unknown as Sandbox, host)
  scenarioSets.set(sandbox as unknown as Sandbox, scenarios)
  return sandbox
}

const scenarioSets = new WeakMap<Sandbox, ScenarioSet>()

/**
 * Puts a sandbox (its default data set) in the scenario `name` but for its data: the browser's
 * `persist` loads data another tab saved in it ({@link SandboxInstance.followScenario}). Its
 * own data are made first, as a switch makes them (faker loaded, in slices): a reset there
 * returns to them. False for a name it lacks. Not part of the public API.
 */
export async function followScenario(sandbox: Sandbox, name: string): Promise<boolean> {
  let scenario: Scenario | undefined
  try {
    scenario = scenarioSets.get(sandbox)?.get(name)
    await scenario?.prepared()
  } catch {
    // One that does not fit this sandbox (its data too large): it stays as it is.
    return false
  }
  if (!scenario) return false
  sandbox.instance().followScenario(scenario)
  return true
}

/** The scenario the `scenario` option names, or a TypeError naming the known ones. */
function scenarioOption(scenarios: ScenarioSet, name: string): Scenario {
  let scenario: Scenario | undefined
  try {
    scenario = scenarios.get(name)
  } catch (error) {
    throw new OptionsError(
      'sandbox',
      `scenario: '${name}' does not fit: ${(error as Error).message}`,
      { cause: error },
    )
  }
  if (!scenario)
    throw new OptionsError('sandbox', `scenario: ${unknownScenario(name, scenarios.names)}`)
  return scenario
}

/** The marker MSW's handler turns into `passthrough()` (the journal shows it with status 0). */
const passingThrough = (): ApiResponse => ({
  status: 0,
  headers: {},
  body: null,
  code: null,
  passthrough: true,
})

const hosts = new WeakMap<Sandbox, PipelineHost>()

/**
 * Sets what answers requests under the base path no route and no override answers: the Node
 * server's proxy (CONTRACT C4). Not part of the public API.
 */
export function setUnmatched(sandbox: Sandbox, unmatched: PipelineHost['unmatched']): void {
  const host = hosts.get(sandbox)
  if (!host) throw new TypeError('not a sandbox made by createSandbox')
  host.unmatched = unmatched
}

/** Stores an override in a sandbox; a RangeError past its bounds (--max-overrides, --overrides-bytes). */
function addOverride(instance: SandboxInstance, input: ParsedOverride) {
  try {
    return instance.overrides.add(input)
  } catch (error) {
    if (error instanceof OverrideBoundError) throw new RangeError(error.message, { cause: error })
    throw error
  }
}

const answers = new WeakMap<Sandbox, (request: ApiRequest) => ApiResponse | Promise<ApiResponse>>()

/**
 * `sandbox.handle`, without the promise when the answer is ready at once (most reads): what
 * the Node server uses, so it can write such answers in the same tick.
 */
export function answerOf(
  sandbox: Sandbox,
): (request: ApiRequest) => ApiResponse | Promise<ApiResponse> {
  return answers.get(sandbox) ?? ((request) => sandbox.handle(request))
}
