import type { Operation } from './operation.js'
import { orderRoutes } from './orders.js'
import { productRoutes } from './products.js'
import { Router } from './router.js'
import { sessionRoutes } from './sessions.js'
import { userRoutes } from './users.js'

/** Every route of the API (CONTRACT parts A and B), compiled once. */
export const apiRouter = new Router<Operation>([
  ...userRoutes,
  ...productRoutes,
  ...orderRoutes,
  ...sessionRoutes,
])

/** First path segments that belong to the API, for claiming requests under a root base path. */
export const apiRoots: readonly string[] = [
  ...new Set(apiRouter.routes.map((route) => route.path.split('/')[1]!)),
]
