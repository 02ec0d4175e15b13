import { describe, expect, it } from 'vitest'
import { apiRoutes } from '../../http/routes.js'
import { shopCatalog } from '../../shop/index.js'

const apiRouter = apiRoutes(shopCatalog).router
import { createSandbox } from '../../index.js'

/**
 * CONTRACT B4 as one table: for every route and method, who besides admins may call it
 * ('self': a member on their own user; 'any': any member; 'none') and a body that succeeds.
 * The expected status of every identity is derived from this row; nothing is written twice.
 */
const rules: Record<
  string,
  { member: 'self' | 'any' | 'none'; body?: (productId: number) => unknown; auth?: false }
> = {
  'GET /users': { member: 'none' },
  'POST /users': {
    member: 'none',
    body: (_p) => ({ name: 'matrix-new', email: 'matrix-new@example.com' }),
  },
  'GET /users/{user_id}': { member: 'self' },
  'PUT /users/{user_id}': {
    member: 'self',
    body: (_p) => ({
      name: 'matrix-put',
      email: 'matrix-put@example.com',
      status: 'active',
      role: 'member',
    }),
  },
  'PATCH /users/{user_id}': { member: 'self', body: (_p) => ({ name: 'matrix-patch' }) },
  'DELETE /users/{user_id}': { member: 'none' },
  'GET /users/{user_id}/orders': { member: 'self' },
  'POST /users/{user_id}/orders': {
    member: 'self',
    body: (p) => ({ items: [{ productId: p, quantity: 1 }] }),
  },
  'GET /users/{user_id}/orders/{order_id}': { member: 'self' },
  'GET /products': { member: 'any' },
  'POST /products': {
    member: 'none',
    body: (_p) => ({ name: 'Matrix', sku: 'MATRIX-1', price: 1, stock: 1 }),
  },
  'GET /products/{product_id}': { member: 'any' },
  'PUT /products/{product_id}': {
    member: 'none',
    body: (_p) => ({ name: 'Matrix', sku: 'MATRIX-2', price: 1, stock: 1, status: 'active' }),
  },
  'PATCH /products/{product_id}': { member: 'none', body: (_p) => ({ stock: 5 }) },
  'DELETE /products/{product_id}': { member: 'none' },
  'GET /orders': { member: 'none' },
  'POST /orders': {
    member: 'none',
    body: (p) => ({ userId: 2, items: [{ productId: p, quantity: 1 }] }),
  },
  'GET /orders/{order_id}': { member: 'none' },
  'PUT /orders/{order_id}': {
    member: 'none',
    body: (p) => ({ status: 'pending', items: [{ productId: p, quantity: 1 }] }),
  },
  'PATCH /orders/{order_id}': { member: 'none', body: (_p) => ({ status: 'cancelled' }) },
  'DELETE /orders/{order_id}': { member: 'none' },
  'POST /sessions': {
    member: 'any',
    auth: false,
    body: (_p) => ({ email: 'member@example.com', password: 'password' }),
  },
  'DELETE /sessions/current': { member: 'any' },
}

type Identity = 'none' | 'bad token' | 'expired token' | 'member-self' | 'member-other' | 'admin'
const identities: Identity[] = [
  'none',
  'bad token',
  'expired token',
  'member-self',
  'member-other',
  'admin',
]

function expectedStatus(rule: (typeof rules)[string], identity: Identity, success: number): number {
  if (rule.auth === false) return success
  if (identity === 'none' || identity === 'bad token' || identity === 'expired token') return 401
  if (identity === 'admin') return success
  if (rule.member === 'any') return success
  if (rule.member === 'self' && identity === 'member-self') return success
  return 403
}

const cases = apiRouter.routes.flatMap((route) =>
  Object.entries(route.operations).flatMap(([method, operation]) =>
    identities.map((identity) => ({
      key: `${method} ${route.path}`,
      method,
      path: route.path,
      identity,
      success: operation.docs.success.status,
    })),
  ),
)

describe('authorization matrix: every endpoint × method × identity (CONTRACT B4)', () => {
  it('covers every route and method of the router', () => {
    expect(new Set(cases.map((c) => c.key))).toEqual(new Set(Object.keys(rules)))
  })

  it.each(cases)('$key as $identity', async ({ key, method, path, identity, success }) => {
    const rule = rules[key]!
    let now = Date.parse('2026-06-01T00:00:00.000Z')
    const sandbox = createSandbox({ clock: () => now, tokenTtl: 60 })
    const productId = sandbox.db.products
      .all()
      .find((product) => product.status === 'active' && product.stock >= 5)!.id
    const own = sandbox.db.orders
      .all()
      .find((order) => order.userId === 2 && order.status === 'pending')!
    const foreign =
      sandbox.db.orders.all().find((order) => order.userId === 3) ??
      (await placeFor(sandbox, 3, productId))
    const self = identity !== 'member-other'
    const concrete = path
      .replace('{user_id}', self ? '2' : '3')
      .replace(
        '{order_id}',
        String(key.startsWith('GET /users') ? (self ? own.id : foreign.id) : own.id),
      )
      .replace('{product_id}', String(productId))
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (identity === 'bad token') headers.authorization = 'Bearer not-a-token'
    if (identity === 'admin') headers.authorization = 'Bearer sandbox-admin-token'
    if (identity.startsWith('member')) headers.authorization = 'Bearer sandbox-member-token'
    if (identity === 'expired token') {
      const signIn = await sandbox.fetch('/sessions', {
        method: 'POST',
        headers,
        body: JSON.stringify({ email: 'admin@example.com', password: 'password' }),
      })
      headers.authorization = `Bearer ${(await signIn.json()).data.token}`
      now += 61_000
    }
    const response = await sandbox.fetch(concrete, {
      method,
      headers,
      ...(rule.body === undefined ? {} : { body: JSON.stringify(rule.body(productId)) }),
    })
    const want = expectedStatus(rule, identity, success)
    expect(
      response.status,
      `${method} ${concrete} as ${identity}: ${await response.clone().text()}`,
    ).toBe(want)
    if (want === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer')
    if (want >= 400)
      expect((await response.json()).code).toBe(
        want === 401 ? (identity === 'none' ? 40100 : 40101) : 40300,
      )
  })
})

async function placeFor(
  sandbox: ReturnType<typeof createSandbox>,
  userId: number,
  productId: number,
) {
  const response = await sandbox.fetch(`/users/${userId}/orders`, {
    method: 'POST',
    headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify({ items: [{ productId, quantity: 1 }] }),
  })
  return (await response.json()).data
}
