import { ApiError } from '../contract/api-error.js'

/** The methods the API knows; HEAD is answered by GET routes. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface Route<Op> {
  /** OpenAPI-style path, e.g. `/users/{user_id}/orders`. */
  path: string
  operations: Partial<Record<Method, Op>>
}

export interface RouteMatch<Op> {
  route: Route<Op>
  /** Raw (undecoded) path segments by parameter name. */
  params: Record<string, string>
}

interface CompiledRoute<Op> {
  route: Route<Op>
  segments: Array<{ literal: string } | { param: string }>
}

/**
 * A route table compiled once: routing is by shape (CONTRACT B2), so a segment in an id
 * position matches anything there (its value is checked later, 400), and a literal segment
 * beats a parameter.
 *
 * @example
 * const router = new Router([{ path: '/users/{user_id}', operations: { GET: getUser } }])
 * router.match('/users/7') // { route, params: { user_id: '7' } }
 */
export class Router<Op> {
  readonly routes: readonly Route<Op>[]
  readonly #bySegmentCount = new Map<number, CompiledRoute<Op>[]>()

  constructor(routes: readonly Route<Op>[]) {
    this.routes = routes
    for (const route of routes) {
      const segments = splitPath(route.path).map((part) =>
        part.startsWith('{') ? { param: part.slice(1, -1) } : { literal: part },
      )
      const list = this.#bySegmentCount.get(segments.length) ?? []
      list.push({ route, segments })
      // Routes with more literal segments first: `/sessions/current` before `/sessions/{id}`.
      list.sort((a, b) => literalCount(b) - literalCount(a))
      this.#bySegmentCount.set(segments.length, list)
    }
  }

  /** The route for a path (without base path), or null. A trailing slash is ignored. */
  match(path: string): RouteMatch<Op> | null {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
    const parts = splitPath(trimmed)
    if (parts.includes('')) return null
    const candidates = this.#bySegmentCount.get(parts.length)
    if (!candidates) return null
    // Plain loops: this runs on every request.
    candidates: for (const candidate of candidates) {
      const { segments } = candidate
      for (let index = 0; index < segments.length; index++) {
        const segment = segments[index]!
        if ('literal' in segment && segment.literal !== parts[index]) continue candidates
      }
      const params: Record<string, string> = {}
      for (let index = 0; index < segments.length; index++) {
        const segment = segments[index]!
        if ('param' in segment) params[segment.param] = parts[index]!
      }
      return { route: candidate.route, params }
    }
    return null
  }
}

/** The value of the `Allow` header for a route. */
export function allowHeader(route: Route<unknown>): string {
  return Object.keys(route.operations).join(', ')
}

/** The operation for a method, or a 405 / 40500 with `Allow`. HEAD is served by GET. */
export function operationFor<Op>(route: Route<Op>, method: string): Op {
  const operation = route.operations[(method === 'HEAD' ? 'GET' : method) as Method]
  if (!operation) {
    throw ApiError.of(
      'methodNotAllowed',
      `${method} is not allowed on ${route.path}; allowed: ${allowHeader(route)}`,
      {
        allow: allowHeader(route),
      },
    )
  }
  return operation
}

function splitPath(path: string): string[] {
  return path === '/' ? [] : path.split('/').slice(1)
}

function literalCount(route: CompiledRoute<unknown>): number {
  return route.segments.filter((segment) => 'literal' in segment).length
}
