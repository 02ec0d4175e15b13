import type { SetupServer } from 'msw/node'
import { setupServer } from 'msw/node'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { ShopSandboxOptions } from '../shop/defaults.js'
import { createSandbox } from '../shop/defaults.js'
import type { shopResources } from '../shop/index.js'
import type { UnhandledStrategy } from '../sandbox/unhandled.js'
import { unhandledOptions, unhandledStrategy } from '../sandbox/unhandled.js'

/** Options of `listen()`: either name of MSW's option works on msw 2 and msw 3. */
export interface SandboxListenOptions {
  /** What MSW does with requests no handler claims (msw's default: `'warn'`). */
  onUnhandledRequest?: UnhandledStrategy
  /** The same, under msw 3's name. */
  onUnhandledFrame?: UnhandledStrategy
}

/**
 * MSW's server holding the sandbox's handlers, with the sandbox's own members on it too
 * (`reset()`, `db`, `snapshot()`, …: none of their names collide with MSW's), and both parts
 * also reachable as `server` and `sandbox`. `listen()` takes either name of the
 * unhandled-request option, and `close()` may be called twice.
 */
export type SetupSandboxResult<D extends readonly AnyResourceDefinition[] = typeof shopResources> =
  Omit<SetupServer, 'listen'> &
    Sandbox<D> & {
      listen(options?: SandboxListenOptions): void
      server: SetupServer
      sandbox: Sandbox<D>
    }

/**
 * A sandbox wired into MSW's `setupServer`, for Vitest and Jest.
 *
 * @example
 * const sandbox = setupSandbox({ baseUrl: 'https://api.example.test' })
 * beforeAll(() => sandbox.listen({ onUnhandledRequest: 'error' }))
 * afterEach(() => sandbox.reset())
 * afterAll(() => sandbox.close())
 */
export function setupSandbox<const R extends readonly AnyResourceDefinition[] = []>(
  options?: ShopSandboxOptions<R>,
): SetupSandboxResult<[...typeof shopResources, ...R]>
export function setupSandbox<
  const A extends ApiDefinition,
  const R extends readonly AnyResourceDefinition[] = [],
>(
  options: SandboxOptions<A> & { api: A; resources?: R },
): SetupSandboxResult<[...A['resources'], ...R]>
export function setupSandbox(
  options?: SandboxOptions & { api?: ApiDefinition },
): SetupSandboxResult<readonly AnyResourceDefinition[]>
export function setupSandbox(
  options: SandboxOptions & { api?: ApiDefinition } = {},
): SetupSandboxResult<readonly AnyResourceDefinition[]> {
  const sandbox = createSandbox(options)
  const server = setupServer(...sandbox.handlers)
  const listen = server.listen.bind(server)
  const close = server.close.bind(server)
  let listening = false
  Object.defineProperties(server, Object.getOwnPropertyDescriptors(sandbox))
  return Object.assign(server, {
    server,
    sandbox,
    listen(listenOptions: SandboxListenOptions = {}) {
      const strategy = unhandledStrategy(listenOptions, 'listen()', true)
      listen((strategy ? unhandledOptions(strategy) : {}) as Parameters<SetupServer['listen']>[0])
      listening = true
    },
    close() {
      // msw 3 throws on a second close; msw 2 did nothing.
      if (!listening) return
      listening = false
      close()
    },
  }) as unknown as SetupSandboxResult<readonly AnyResourceDefinition[]>
}
