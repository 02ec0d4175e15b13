import type { CodeDefinition } from '../contract/codes.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import type { Catalog } from '../resources/catalog.js'
import type { SandboxInstance } from '../state/instance.js'
import type { NearMiss } from '../state/overrides/index.js'
import type { Operation, Principal } from './operation.js'
import type { Preferences } from './preferences.js'
import type { RouteMatch } from './router.js'
import type { ApiRoutes } from './routes.js'

/** An answer now, or once something on the way has waited (a body, a delay, the disk). */
export type Answer = ApiResponse | Promise<ApiResponse>

/** What the pipeline needs from the sandbox that runs it. */
export interface PipelineHost {
  /** Where resources live: '' (the root) or e.g. '/api'. */
  readonly basePath: string
  /** The API's resources and the routes compiled from them. */
  readonly catalog: Catalog
  readonly routes: ApiRoutes
  /**
   * The sandbox for an `X-Sandbox-Id` (null: the default one), created on first use; in the
   * scenario `X-Sandbox-Scenario` names when it creates one (404 for a name it lacks).
   */
  instanceFor(name: string | null, scenario: string | null): SandboxInstance
  /**
   * What a scenario's data waits for before a sandbox can be made in it (faker, in a browser),
   * or null; 404 for a name the sandbox lacks.
   */
  scenarioReady(name: string): Promise<void> | null
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
  /**
   * What answers a request under the base path that no route and no override answers
   * (CONTRACT C4): the Node server's proxy (`--proxy`), MSW's passthrough; unset: 404.
   */
  unmatched?: ((c: Context) => Answer) | undefined
}

/** Where the control API lives (CONTRACT C1), under no base path. */
export const CONTROL_PREFIX = '/__sandbox'

/** Whether a path is the control API's (or inside it). */
export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)
}

/**
 * One request on its way through the steps (http/pipeline.ts): what each step found, for the
 * steps after it and for the journal. One object per request, every field present from the
 * start (the steps store into it as it is, instead of growing it).
 */
export class Context implements Pick<ApiRequest, 'header' | 'readBody'> {
  /** Its `X-Request-Id` (the request id step). */
  requestId = ''
  /** The caller's sandbox (the sandbox step sets it before any step that reads it). */
  instance!: SandboxInstance
  /** The path under the base path. */
  path = ''
  /** When it came (the sandbox's clock) and when it started (for its duration). */
  at = 0
  started = 0
  /** The route and its operation for the method; null when the API has no such route or method. */
  match: RouteMatch<Operation> | null = null
  operation: Operation | null = null
  /** Who is calling (the authenticate step); null without a token where none is needed. */
  principal: Principal | null = null
  preferences: Preferences | null = null
  /** The JSON body once read, the text it came as, and its size (for the journal, the data file). */
  body: unknown = undefined
  bodyText: string | undefined = undefined
  bytes: number | undefined = undefined
  overrideId: number | undefined = undefined
  nearMiss: NearMiss | undefined = undefined
  /** Forwarded to the proxy target, or passed through to the network (CONTRACT C4). */
  proxied = false
  /** The raw body, once read (by an override's body condition, then by the operation). */
  raw: Promise<Uint8Array | 'too-large' | 'busy'> | undefined = undefined

  constructor(
    readonly host: PipelineHost,
    readonly request: ApiRequest,
  ) {}

  /** A request header (the context stands for the request where its body is read once). */
  header(name: string): string | null {
    return this.request.header(name)
  }

  /** The request's body, read once: an override's body condition and the operation share it. */
  readBody(limit: number): Promise<Uint8Array | 'too-large' | 'busy'> {
    return (this.raw ??= this.request.readBody(limit))
  }

  /**
   * The conflict a 409 without a code answers here (`Prefer: code=409`, an override's 409): the
   * route's resource's own, else the API's first (a route of no resource, a stub).
   */
  get conflict(): CodeDefinition | undefined {
    return this.operation?.conflict ?? this.host.catalog.conflict
  }
}
