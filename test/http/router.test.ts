import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { apiRoutes } from '../../http/routes.js'
import type { Route } from '../../http/router.js'
import { shopCatalog } from '../../shop/index.js'

const { router } = apiRoutes(shopCatalog)

/**
 * Routing by shape, written the plain way (split the path, compare segment by segment): what
 * the router's in-place scan must agree with. A trailing slash is ignored, an empty segment
 * matches nothing, a literal segment beats a parameter.
 */
function reference(path: string): { route: Route<unknown>; params: Record<string, string> } | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  if (!trimmed.startsWith('/')) return null
  const parts = trimmed === '/' ? [] : trimmed.split('/').slice(1)
  if (parts.includes('')) return null
  const shapes = router.routes
    .map((route) => ({ route, segments: route.path === '/' ? [] : route.path.split('/').slice(1) }))
    .filter(({ segments }) => segments.length === parts.length)
    .sort(
      (a, b) =>
        b.segments.filter((part) => !part.startsWith('{')).length -
        a.segments.filter((part) => !part.startsWith('{')).length,
    )
  for (const { route, segments } of shapes) {
    if (segments.some((part, index) => !part.startsWith('{') && part !== parts[index])) continue
    const params: Record<string, string> = {}
    segments.forEach((part, index) => {
      if (part.startsWith('{')) params[part.slice(1, -1)] = parts[index]!
    })
    return { route, params }
  }
  return null
}

/** Paths made of the API's own words, ids, odd characters and empty segments. */
const words = [
  ...new Set(router.routes.flatMap((route) => route.path.split('/').filter(Boolean))),
].filter((word) => !word.startsWith('{'))
const segment = fc.oneof(
  { arbitrary: fc.constantFrom(...words), weight: 4 },
  { arbitrary: fc.constantFrom('', '1', '123', 'abc', 'current'), weight: 3 },
  { arbitrary: fc.constantFrom('users%2F1', '.', '..', 'USERS'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 4 }), weight: 1 },
)
const paths = fc
  .tuple(fc.array(segment, { maxLength: 5 }), fc.boolean())
  .map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`)

describe('the router (CONTRACT B2: routing by shape)', () => {
  it('matches every path as splitting it segment by segment would', () => {
    fc.assert(
      fc.property(paths, (path) => {
        expect(router.match(path)).toEqual(reference(path))
      }),
      { numRuns: 5000 },
    )
  })

  it.each([
    ['/users/7', '/users/{user_id}', { user_id: '7' }],
    ['/users/7/', '/users/{user_id}', { user_id: '7' }],
    ['/users/7/orders/3', '/users/{user_id}/orders/{order_id}', { user_id: '7', order_id: '3' }],
    ['/sessions/current', '/sessions/current', {}],
    ['/users', '/users', {}],
  ])('%s → %s', (path, route, params) => {
    expect(router.match(path)).toMatchObject({ route: { path: route }, params })
  })

  it.each([
    '/',
    '//users',
    '/users//1',
    '/users//orders',
    '/users/7//',
    '/nowhere',
    '/users/1/2/3/4/5',
    '',
  ])('%s matches no route', (path) => {
    expect(router.match(path)).toBeNull()
  })
})
