import type { HttpHandler, RequestHandler, WebSocketHandler } from 'msw'
import { setupWorker } from 'msw/browser'
import * as z from 'zod'
import { describeIssues, safeParseReporting } from '../contract/issues.js'
import { OptionsError } from '../contract/option-spec.js'
import { WRITE_METHODS } from '../http/pipeline.js'
import type { ApiDefinition } from '../resources/api.js'
import { Catalog } from '../resources/catalog.js'
import { loadFaker, loadFakerEnglish } from '../resources/seed-sources.js'
import { hasPreparedSeed } from '../resources/seed.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import type { ApiStore, Sandbox } from '../sandbox/create-sandbox.js'
import { createApiSandbox, followScenario } from '../sandbox/create-sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { parseBaseUrl, resolveOptions } from '../sandbox/options.js'
import type { UnhandledStrategy } from '../sandbox/unhandled.js'
import { unhandledOptions, unhandledStrategy } from '../sandbox/unhandled.js'
import { claims, createHandlers, toFetchResponse } from '../sandbox/msw-handlers.js'
import { apiRoutes } from '../http/routes.js'
import { DEFAULT_SCENARIO, isSeedData, unknownScenario } from '../state/scenarios.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { fromFetchRequest } from '../contract/exchange.js'
import type { ConsolePanel, ConsolePanelOptions } from './console-panel.js'
import { persistInStorage, savedScenario } from './storage-persistence.js'

/** What `startSandbox` adds to the sandbox's options: the service worker's. */
export interface WorkerOptions {
  /** What MSW does with requests the sandbox does not claim (default `'bypass'`: they go to the network). */
  onUnhandledRequest?: UnhandledStrategy
  /** The same, under msw 3's name (either works on msw 2 and 3). */
  onUnhandledFrame?: UnhandledStrategy
  /** No MSW log line per request in the console (default false). */
  quiet?: boolean
  /**
   * Keep the data across reloads in IndexedDB, in step across tabs (default false).
   * `true` uses the key `shop-sandbox:db`; give `{ key }` to keep several data sets apart.
   */
  persist?: boolean | { key: string }
  /** Where the app serves MSW's worker script (default `/mockServiceWorker.js`). */
  serviceWorkerUrl?: string
  /**
   * The sandbox console in the app's page (default false): a small "Sandbox" button, or
   * Ctrl+Alt+S, opens it over the app, in a shadow root. Start the sandbox in development only,
   * and the console never reaches a production build.
   */
  console?: boolean | ConsolePanelOptions
}

/**
 * The part of MSW's worker (`setupWorker`) a sandbox hands out: its handlers, for one-off
 * ones. Typed here rather than as `msw/browser`'s `SetupWorker`: that entry point resolves
 * for no Node condition (`"node": null`), so a CommonJS `nodenext` project could not read the
 * types of `shop-sandbox/browser`.
 */
export interface SandboxWorker {
  /** Adds handlers in front of the sandbox's (until `resetHandlers`). */
  use(...handlers: Array<RequestHandler | WebSocketHandler>): void
  /** Drops the handlers added with `use` (or replaces them all with `handlers`). */
  resetHandlers(...handlers: Array<RequestHandler | WebSocketHandler>): void
  /** The handlers in use. */
  listHandlers(): readonly unknown[]
  /** Stops intercepting requests (the sandbox's `stop()` does this and stops saving too). */
  stop(): void
  /** MSW's life-cycle events (`request:start`, `response:mocked`, `request:unhandled`…). */
  readonly events: {
    on(event: WorkerEvent, listener: (details: WorkerEventDetails) => void): void
    removeListener(event: WorkerEvent, listener: (details: WorkerEventDetails) => void): void
    removeAllListeners(event?: WorkerEvent): void
  }
}

/** The events of MSW's worker (msw 2 and 3). */
export type WorkerEvent =
  | 'request:start'
  | 'request:match'
  | 'request:unhandled'
  | 'request:end'
  | 'response:mocked'
  | 'response:bypass'
  | 'unhandledException'

/** What a worker event tells a listener (the fields each event carries). */
export interface WorkerEventDetails {
  request: Request
  requestId: string
  response?: Response
  error?: Error
}

/** Options of `startSandbox`: the sandbox's, plus the service worker's. */
export type BrowserSandboxOptions<A extends ApiDefinition = ApiDefinition> = SandboxOptions<A> &
  WorkerOptions

/** A sandbox running in the browser. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a sandbox of an API not known by type
export interface BrowserSandbox<D extends readonly AnyResourceDefinition[] = any> {
  readonly sandbox: Sandbox<D>
  /** The default sandbox's data. */
  readonly db: ApiStore<D>
  /** MSW's worker. */
  readonly worker: SandboxWorker
  /** Back to the scenario's data (saved too, when persisting). */
  reset(): void
  /**
   * Puts the sandbox in a scenario (CONTRACT C5), loading faker first when its data is
   * generated; a RangeError naming the known ones for a name it lacks.
   */
  useScenario(name: string): Promise<void>
  /** The console panel, with `console: true`; else null. */
  readonly console: ConsolePanel | null
  /** Stops intercepting requests and saving data (a second call does nothing). */
  stop(): Promise<void>
}

/**
 * Starts a sandbox of an API (`options.api`) in the browser: MSW's service worker answers the
 * app's `fetch` and `XMLHttpRequest` calls with the same handlers the Node server uses.
 * Resolves once the worker is active. The package's `startSandbox` is this with the Shop API as
 * the default.
 */
export async function startApiSandbox(
  options: BrowserSandboxOptions & { api: ApiDefinition },
  preparing: Promise<void> = Promise.resolve(),
): Promise<BrowserSandbox> {
  const strategy = unhandledStrategy(options, 'startSandbox()') ?? 'bypass'
  checkWorkerOptions(options)
  const {
    onUnhandledRequest: _,
    onUnhandledFrame: __,
    quiet = false,
    persist = false,
    serviceWorkerUrl,
    console: consoleOption = false,
    ...sandboxOptions
  } = options
  // The scenario to start in (CONTRACT C5): the option's, else the page address's
  // (`?scenario=empty`: a link opens the app in that state).
  const addressed =
    sandboxOptions.scenario === undefined && typeof location !== 'undefined'
      ? new URLSearchParams(location.search).get('scenario')
      : null
  const definitions = [...(options.api.scenarios ?? []), ...(sandboxOptions.scenarios ?? [])]
  const names = [DEFAULT_SCENARIO, ...definitions.map(({ name }) => name)]
  const known = (name: string | null) => name !== null && names.includes(name)
  const key = persist === false ? null : persist === true ? 'shop-sandbox:db' : persist.key
  // Chosen for this page (the option, or a scenario the address names), else, persisting, the
  // one the saved data belong to.
  const chosen = sandboxOptions.scenario ?? (known(addressed) ? addressed : null)
  // The worker registers first (the browser fetches and starts its script elsewhere) while the
  // sandbox and its data are made here: a page's start is the longer of the two, not their sum.
  // Its handlers claim nothing until the sandbox is made: a request before then (while
  // persisted data are read, say) goes to the network, as before the worker was active.
  let made: { sandbox: Sandbox; answer: (request: ApiRequest) => Promise<ApiResponse> } | undefined
  const worker = setupWorker(
    ...createHandlers(
      (url) => made !== undefined && made.sandbox.claims(url),
      (request) => made!.answer(request),
      { onError: (error) => made?.sandbox.options.onUnexpectedError(error) },
    ),
  )
  const started = worker.start({
    ...unhandledOptions(strategy),
    quiet,
    ...(serviceWorkerUrl ? { serviceWorker: { url: serviceWorkerUrl } } : {}),
  })
  // Awaited below; a registration that fails meanwhile is not an unhandled rejection.
  started.catch(() => undefined)
  let persistence: Awaited<ReturnType<typeof persistInStorage>> | null = null
  let sandbox: Sandbox
  let catalog: Catalog
  try {
    await preparing
    const saved = key !== null && chosen === null ? await savedScenario(key) : null
    const starting = chosen ?? (known(saved) ? saved : null)
    // faker only when the data is generated in the page: a data set the build prepared needs none.
    await loadFakerFor({ ...options, ...(starting ? { scenario: starting } : {}) })
    catalog = Catalog.of(options.api, options.resources ?? [])
    if (addressed !== null && !known(addressed))
      console.warn(
        `[shop-sandbox] ?scenario=${addressed.slice(0, 64)} names no scenario: ${unknownScenario(addressed, names)}; starting in ${starting ?? DEFAULT_SCENARIO}`,
      )
    sandbox = createApiSandbox({
      // Beside the app's own files, the document lives under the API's base path.
      openApiPath: openApiPathFor(sandboxOptions.baseUrl),
      ...sandboxOptions,
      ...(starting ? { scenario: starting } : {}),
    })
    persistence =
      key === null
        ? null
        : await persistInStorage(sandbox.db, sandbox.options.catalog, key, {
            current: () => sandbox.scenario,
            chosen,
            follow: (name) => followScenario(sandbox, name),
            hold: () => sandbox.instance().hold(),
          })
    const stored = persistence
    // With persistence, writes run one tab at a time on the newest data (ids unique across
    // tabs), and are answered once stored.
    made = {
      sandbox,
      answer: (request) =>
        stored && WRITE_METHODS.has(request.method)
          ? stored.write(() => sandbox.handle(request))
          : sandbox.handle(request),
    }
    await started
  } catch (error) {
    // A sandbox that could not be made (its options, its data) leaves no worker behind.
    await started.catch(() => undefined)
    persistence?.stop()
    await Promise.resolve()
      .then(() => worker.stop())
      .catch(() => undefined)
    throw error
  }
  const { answer } = made
  // The console calls the sandbox in the page, as the worker does: no network, no MSW log line.
  // Loaded only when asked for: an app without it does not carry it.
  const consolePanel = consoleOption
    ? (await import('./console-panel.js')).mountConsolePanel(
        {
          origin: parseBaseUrl(sandboxOptions.baseUrl ?? '').origin ?? location.origin,
          docs: null,
          fetch: async (url, init) =>
            toFetchResponse(
              await answer(fromFetchRequest(new Request(url, init))),
              sandbox.options.onUnexpectedError,
            ),
        },
        consoleOption === true ? {} : consoleOption,
      )
    : null
  let stopped = false
  return {
    sandbox,
    db: sandbox.db,
    worker,
    console: consolePanel,
    reset: () => sandbox.reset(),
    async useScenario(name) {
      const known = sandbox.scenarios.find((scenario) => scenario.name === name)
      if (known?.sets.data === 'seed') {
        await loadFaker()
        if (!catalog.fakerLocale) await loadFakerEnglish()
      }
      sandbox.useScenario(name)
    },
    async stop() {
      if (stopped) return
      stopped = true
      consolePanel?.remove()
      persistence?.stop()
      // msw 3's stop() is async and rejects when called twice; msw 2's returns nothing.
      await worker.stop()
    },
  }
}

/** The worker's own options, as `startSandbox` takes them (the sandbox checks the rest). */
const workerOptionsSchema = () =>
  z.object({
    quiet: z.boolean().optional(),
    persist: z.union([z.boolean(), z.strictObject({ key: z.string().min(1).max(200) })]).optional(),
    serviceWorkerUrl: z.string().min(1).optional(),
    console: z
      .union([
        z.boolean(),
        z.strictObject({ open: z.boolean().optional(), key: z.string().min(1).max(20).optional() }),
      ])
      .optional(),
  })

/**
 * Refuses a bad value of the worker's own options early, naming it, as the sandbox's are
 * refused: `persist: 'yes'` failed later in IndexedDB's words, `console: 'yes'` was taken.
 */
function checkWorkerOptions(options: WorkerOptions): void {
  const parsed = safeParseReporting(workerOptionsSchema(), options)
  if (!parsed.success)
    throw new OptionsError(
      'sandbox',
      parsed.error.issues.flatMap((issue) => describeIssues(issue, 'options')).join('; '),
    )
}

/**
 * Loads faker when a sandbox of these options generates its data in the page (not the data set
 * the build prepared), or its starting scenario does.
 */
export async function loadFakerFor(
  options: SandboxOptions & { api: ApiDefinition },
): Promise<void> {
  const catalog = Catalog.of(options.api, options.resources ?? [])
  const definitions = [...(options.api.scenarios ?? []), ...(options.scenarios ?? [])]
  const wanted = options.scenario ?? 'default'
  const generated = definitions.some(
    (definition) => definition.name === wanted && isSeedData(definition.data),
  )
  if (generated || !hasPreparedSeed(catalog, options)) {
    await loadFaker()
    if (!catalog.fakerLocale) await loadFakerEnglish()
  }
}

/**
 * A sandbox's MSW handlers at once, the sandbox made on the first request they claim (after
 * `prepare`, which loads what its data needs): for a worker someone else starts.
 */
export function apiSandboxHandlers(
  options: SandboxOptions & { api: ApiDefinition },
  prepare: () => Promise<void>,
): HttpHandler[] {
  const resolved = resolveOptions(options)
  const routes = apiRoutes(resolved.catalog)
  let made: Promise<Sandbox> | undefined
  const sandbox = () =>
    (made ??= prepare().then(() =>
      createApiSandbox({ openApiPath: openApiPathFor(options.baseUrl), ...options }),
    ))
  return createHandlers(
    (url) =>
      claims(
        { ...resolved, openApiPath: openApiPathFor(options.baseUrl), roots: routes.roots },
        url,
      ),
    async (request) => (await sandbox()).handle(request),
    { onError: resolved.onUnexpectedError },
  )
}

/** `/api/openapi.json` for a relative base URL `/api`, so the app's own `/openapi.json` stays its own. */
function openApiPathFor(baseUrl = ''): string {
  const { origin, basePath } = parseBaseUrl(baseUrl)
  return origin === null ? `${basePath}/openapi.json` : '/openapi.json'
}
