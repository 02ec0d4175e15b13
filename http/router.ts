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
  /** Per segment: the literal it must equal, or null for a parameter. */
  literals: Array<string | null>
  /** Per segment: the parameter it binds, or null for a literal. */
  names: Array<string | null>
}

const SLASH = 47

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
      const parts = route.path === '/' ? [] : route.path.split('/').slice(1)
      const isParam = (part: string) => part.startsWith('{')
      const compiled: CompiledRoute<Op> = {
        route,
        literals: parts.map((part) => (isParam(part) ? null : part)),
        names: parts.map((part) => (isParam(part) ? part.slice(1, -1) : null)),
      }
      const list = this.#bySegmentCount.get(parts.length) ?? []
      list.push(compiled)
      // Routes with more literal segments first: `/sessions/current` before `/sessions/{id}`.
      list.sort((a, b) => literalCount(b) - literalCount(a))
      this.#bySegmentCount.set(parts.length, list)
    }
  }

  /**
   * The route for a path (without base path), or null. A trailing slash is ignored; an empty
   * segment (`//users`, `/users//1`) matches nothing. The path is scanned in place, without
   * splitting it (this runs on every request).
   */
  match(path: string): RouteMatch<Op> | null {
    let end = path.length
    if (end > 1 && path.charCodeAt(end - 1) === SLASH) end--
    if (path.charCodeAt(0) !== SLASH) return null
    // Segments: one per slash, each non-empty (the root `/` has none).
    let count = 0
    for (let index = 0; end > 1 && index < end; index++) {
      if (path.charCodeAt(index) !== SLASH) continue
      if (index + 1 === end || path.charCodeAt(index + 1) === SLASH) return null
      count++
    }
    const candidates = this.#bySegmentCount.get(count)
    if (!candidates) return null
    candidates: for (const { route, literals, names } of candidates) {
      const params: Record<string, string> = {}
      let start = 1
      for (let index = 0; index < count; index++) {
        const stop = index === count - 1 ? end : path.indexOf('/', start)
        const literal = literals[index]!
        if (literal === null) params[names[index]!] = path.slice(start, stop)
        else if (stop - start !== literal.length || !path.startsWith(literal, start))
          continue candidates
        start = stop + 1
      }
      return { route, params }
    }
    return null
  }
}

/** The value of the `Allow` header for a route. */
export function allowHeader(route: Route<unknown>): string {
  return Object.keys(route.operations).join(', ')
}

/**
 * The operation for a method, or a 405 / 40500 with `Allow` naming the route under `prefix`
 * (the control API's `/__sandbox`). HEAD is served by GET.
 */
export function operationFor<Op>(route: Route<Op>, method: string, prefix = ''): Op {
  const operation = operationOf(route, method)
  if (operation === null) throw methodNotAllowed(route, method, prefix)
  return operation
}

/**
 * The operation for a method, or null. HEAD is served by GET. The method is taken as sent
 * (case-sensitive, RFC 9110): `patch` or `constructor` names no operation.
 */
export function operationOf<Op>(route: Route<Op>, method: string): Op | null {
  const name = method === 'HEAD' ? 'GET' : method
  return Object.hasOwn(route.operations, name) ? (route.operations[name as Method] ?? null) : null
}

/** 405 / 40500 for a method a route does not take, with its `Allow` header. */
export function methodNotAllowed(route: Route<unknown>, method: string, prefix = ''): ApiError {
  return methodRefused(method, `${prefix}${route.path}`, allowHeader(route))
}

/** 405 / 40500 for `method` on `path`, which takes the methods `allow` lists (its `Allow` header). */
export function methodRefused(method: string, path: string, allow: string): ApiError {
  return ApiError.of(
    'methodNotAllowed',
    `${method.slice(0, 20)} is not allowed on ${path}; allowed: ${allow}`,
    { allow },
  )
}

function literalCount(route: CompiledRoute<unknown>): number {
  return route.literals.filter((literal) => literal !== null).length
}
