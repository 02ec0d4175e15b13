import { OptionsError } from '../contract/option-spec.js'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import type { Sandbox as ApiSandbox } from '../sandbox/create-sandbox.js'
import { createApiSandbox } from '../sandbox/create-sandbox.js'
import { apiDocument } from '../openapi/document.js'
import { Catalog } from '../resources/catalog.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { shopApi } from './index.js'
import type { shopResources } from './index.js'

/** The Shop API, the package's default. */
export type ShopApi = typeof shopApi

/** A running sandbox (of the Shop API unless `D` says which resources): handlers, data, controls. */
export type Sandbox<D extends readonly AnyResourceDefinition[] = typeof shopResources> =
  ApiSandbox<D>

/** Options of a sandbox of the Shop API (with resources of your own, `R`). */
export type ShopSandboxOptions<
  R extends readonly AnyResourceDefinition[] = readonly AnyResourceDefinition[],
> = Omit<SandboxOptions<ShopApi>, 'api' | 'resources'> & { api?: undefined; resources?: R }

/** Options with the Shop API as the default `api`: where the package's functions get theirs. */
export function withShop<T extends { api?: ApiDefinition }>(
  options: T,
): T & { api: ApiDefinition } {
  if (typeof options !== 'object' || options === null)
    throw new OptionsError('sandbox', 'options: must be an object')
  // Only a missing api is the shop: `api: null` is a mistake the option check names.
  return { ...options, api: options.api === undefined ? shopApi : options.api }
}

/**
 * Creates a sandbox of the Shop API (or of `api`, an API of your own): seeded data and the
 * handlers that serve it. Resources of your own (`resources`) are typed on `db`.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { createSandbox } from 'shop-sandbox'
 *
 * const sandbox = createSandbox({ baseUrl: 'https://api.example.test', seed: 42 })
 * const server = setupServer(...sandbox.handlers)
 * beforeAll(() => server.listen())
 * afterEach(() => sandbox.reset())
 * afterAll(() => server.close())
 */
export function createSandbox<const R extends readonly AnyResourceDefinition[] = []>(
  options?: ShopSandboxOptions<R>,
): Sandbox<[...typeof shopResources, ...R]>
export function createSandbox<
  const A extends ApiDefinition,
  const R extends readonly AnyResourceDefinition[] = [],
>(options: SandboxOptions<A> & { api: A; resources?: R }): ApiSandbox<[...A['resources'], ...R]>
export function createSandbox(options?: SandboxOptions & { api?: ApiDefinition }): ApiSandbox
export function createSandbox(options: SandboxOptions & { api?: ApiDefinition } = {}): ApiSandbox {
  return createApiSandbox(
    withShop(options) as SandboxOptions & {
      api: ApiDefinition
      resources?: readonly AnyResourceDefinition[]
    },
  ) as unknown as ApiSandbox
}

/**
 * The OpenAPI 3.1 document of the Shop API (or of `api`, with `resources` of your own) and of
 * the sandbox's control API, generated from the schemas the handlers validate with.
 *
 * @example
 * const document = openApiDocument({ baseUrl: 'https://api.example.com' })
 */
export function openApiDocument(
  options: {
    baseUrl?: string
    api?: ApiDefinition
    resources?: readonly AnyResourceDefinition[]
  } = {},
): Record<string, unknown> {
  return apiDocument({
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    catalog: Catalog.of(withShop(options).api, options.resources ?? []),
  })
}
