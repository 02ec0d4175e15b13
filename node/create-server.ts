import type { ApiDefinition } from '../resources/api.js'
import type {
  SandboxServer as ApiSandboxServer,
  SandboxServerOptions as ApiSandboxServerOptions,
} from '../server/server.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import type { ShopApi } from '../shop/defaults.js'
import type { shopResources } from '../shop/index.js'
import { withShop } from '../shop/defaults.js'

/** A started sandbox server (of the Shop API unless `D` says which resources). */
export type SandboxServer<D extends readonly AnyResourceDefinition[] = typeof shopResources> =
  ApiSandboxServer<D>

/** Options of `createSandboxServer`: the sandbox's (of the Shop API), plus where and how to listen. */
export type SandboxServerOptions<
  R extends readonly AnyResourceDefinition[] = readonly AnyResourceDefinition[],
> = Omit<ApiSandboxServerOptions<ShopApi>, 'api' | 'resources'> & {
  api?: undefined
  resources?: R
}

/**
 * Starts the sandbox as a real HTTP server (see the README's "As a local server"). The server
 * code loads on the first call, so `setupSandbox` users never load it.
 *
 * @example
 * const server = await createSandboxServer({ port: 0 })
 * const res = await fetch(`${server.url}/users`, { headers: { authorization: 'Bearer sandbox-admin-token' } })
 * await server.close()
 */
export async function createSandboxServer<const R extends readonly AnyResourceDefinition[] = []>(
  options?: SandboxServerOptions<R>,
): Promise<SandboxServer<[...typeof shopResources, ...R]>>
export async function createSandboxServer<
  const A extends ApiDefinition,
  const R extends readonly AnyResourceDefinition[] = [],
>(
  options: ApiSandboxServerOptions<A> & { api: A; resources?: R },
): Promise<ApiSandboxServer<[...A['resources'], ...R]>>
export async function createSandboxServer(
  options?: ApiSandboxServerOptions & { api?: ApiDefinition },
): Promise<ApiSandboxServer>
export async function createSandboxServer(
  options: ApiSandboxServerOptions & { api?: ApiDefinition } = {},
): Promise<ApiSandboxServer> {
  const server = await import('../server/server.js')
  return server.createApiSandboxServer(withShop(options))
}
