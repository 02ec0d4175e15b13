import type { Catalog } from '../resources/catalog.js'
import { resourceRoutes } from './crud.js'
import type { Operation } from './operation.js'
import { Router } from './router.js'
import { sessionRoutes } from './sessions.js'

/** An API's routes, compiled once per catalog. */
export interface ApiRoutes {
  router: Router<Operation>
  /** First path segments that belong to the API, for claiming requests under a root base path. */
  roots: readonly string[]
  /** The path parameter naming an account (`user_id`): what `own` permissions compare. */
  ownParam: string
}

const compiled = new WeakMap<Catalog, ApiRoutes>()

/** Every route of the API (CONTRACT parts A and B): each resource's, then the sessions'. */
export function apiRoutes(catalog: Catalog): ApiRoutes {
  let routes = compiled.get(catalog)
  if (!routes) {
    const router = new Router<Operation>([
      ...catalog.resources.flatMap((resource) => resourceRoutes(resource)),
      ...sessionRoutes(catalog.accounts),
    ])
    routes = {
      router,
      roots: [...new Set(router.routes.map((route) => route.path.split('/')[1]!))],
      ownParam: catalog.accounts.resource.idParam,
    }
    compiled.set(catalog, routes)
  }
  return routes
}
