/**
 * `shop-sandbox/browser`: the sandbox in the browser, behind MSW's service worker.
 * @module
 */

import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { loadFaker, providePrepared } from '../resources/seed-sources.js'
import type { ShopApi } from '../shop/defaults.js'
import { withShop } from '../shop/defaults.js'
import type { shopResources } from '../shop/index.js'
import { shopPreparedSeedFile, shopResources as shopDefinitions } from '../shop/index.js'
import type {
  BrowserSandbox as ApiBrowserSandbox,
  BrowserSandboxOptions as ApiBrowserSandboxOptions,
} from './start-sandbox.js'
import type { WorkerOptions } from './start-sandbox.js'
import { apiSandboxHandlers, loadFakerFor, startApiSandbox } from './start-sandbox.js'
import type { HttpHandler } from 'msw'

export * from '../index.js'
export type {
  SandboxWorker,
  WorkerEvent,
  WorkerEventDetails,
  WorkerOptions,
} from './start-sandbox.js'
export type { ConsolePanel, ConsolePanelOptions } from './console-panel.js'

/** A sandbox running in the browser (of the Shop API unless `D` says which resources). */
export type BrowserSandbox<D extends readonly AnyResourceDefinition[] = typeof shopResources> =
  ApiBrowserSandbox<D>

/** Options of `startSandbox`: the sandbox's (of the Shop API), plus the service worker's. */
export type BrowserSandboxOptions<
  R extends readonly AnyResourceDefinition[] = readonly AnyResourceDefinition[],
> = Omit<ApiBrowserSandboxOptions<ShopApi>, 'api' | 'resources'> & {
  api?: undefined
  resources?: R
}

/**
 * Starts the sandbox in the browser (the Shop API, or `api`): MSW's service worker answers the
 * app's `fetch` and `XMLHttpRequest` calls with the same handlers the Node server uses.
 * Resolves once the worker is active, so start the app after it.
 *
 * @example
 * import { startSandbox } from 'shop-sandbox/browser'
 *
 * if (import.meta.env.DEV) await startSandbox({ baseUrl: '/api', persist: true })
 * createApp(App).mount('#app')
 */
export function startSandbox<const R extends readonly AnyResourceDefinition[] = []>(
  options?: BrowserSandboxOptions<R>,
): Promise<BrowserSandbox<[...typeof shopResources, ...R]>>
export function startSandbox<
  const A extends ApiDefinition,
  const R extends readonly AnyResourceDefinition[] = [],
>(
  options: ApiBrowserSandboxOptions<A> & { api: A; resources?: R },
): Promise<ApiBrowserSandbox<[...A['resources'], ...R]>>
export function startSandbox(
  options?: ApiBrowserSandboxOptions & { api?: ApiDefinition },
): Promise<ApiBrowserSandbox>
export async function startSandbox(
  options: ApiBrowserSandboxOptions & { api?: ApiDefinition } = {},
): Promise<ApiBrowserSandbox> {
  // The prepared data set loads while the worker registers (startApiSandbox starts it first).
  return startApiSandbox(withShop(options), prepareSeed(options))
}

/**
 * The shop with its default seed and counts: the data set the build prepared (a chunk of its
 * own), so faker is not loaded at all. Anything else: faker, on demand.
 */
async function prepareSeed(options: { api?: ApiDefinition }): Promise<void> {
  const given = options as Record<string, unknown>
  const defaults =
    options.api === undefined &&
    given.resources === undefined &&
    given.seed === undefined &&
    given.counts === undefined &&
    shopDefinitions.every(({ name }) => given[name] === undefined)
  if (defaults) {
    const { default: prepared } = await import('../shop/prepared-seed.js')
    if (prepared) providePrepared(shopPreparedSeedFile, prepared)
  }
}

/**
 * The sandbox's MSW handlers at once, for a worker someone else starts (Storybook's
 * msw-storybook-addon, a `setupWorker` of your own): the sandbox itself, its data (and faker
 * when it is generated) come with the first request they claim. Takes `createSandbox`'s options;
 * each call is a sandbox of its own.
 *
 * @example
 * // a story in a scenario of its own (msw-storybook-addon)
 * export const Empty = { parameters: { msw: { handlers: sandboxHandlers({ baseUrl: '/api', scenario: 'empty' }) } } }
 */
export function sandboxHandlers(
  options: Omit<ApiBrowserSandboxOptions, keyof WorkerOptions> & { api?: ApiDefinition } = {},
): HttpHandler[] {
  const resolved = withShop(options)
  return apiSandboxHandlers(resolved, async () => {
    await prepareSeed(options)
    await loadFakerFor(resolved)
  })
}

/**
 * Loads faker for what generates data outside `startSandbox` (`createSandbox`, `seedData` in a
 * page): `startSandbox` loads it itself when it needs it.
 */
export { loadFaker }
