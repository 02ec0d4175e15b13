import { describe, expect, it } from 'vitest'
import { ADMIN, MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()

/** Ids the rows refer to, resolved against the seeded data. */
function fixtures() {
  const orders = sandbox.db.orders.all()
  const own = orders.find((order) => order.userId === 2)!
  const foreign = orders.find((order) => order.userId !== 2 && order.userId !== 1)!
  const productId = sandbox.db.products
    .all()
    .find((product) => product.status === 'active' && product.stock > 5)!.id
  return { own: own.id, foreign: foreign.id, other: foreign.userId, productId }
}

type Fixtures = ReturnType<typeof fixtures>
const items = (f: Fixtures) => ({ items: [{ productId: f.productId, quantity: 1 }] })
const userBody = {
  name: 'someone-new',
  email: 'someone-new@example.com',
  status: 'active',
  role: 'member',
}
const productBody = { name: 'P', sku: 'PERM-1', price: 1, stock: 1, status: 'active' }

/**
 * CONTRACT B4, one row per endpoint and method: the status for the admin token and for the
 * member token (user 2). "other" is a user who is neither.
 */
const rows: Array<{
  method: string
  path: (f: Fixtures) => string
  body?: (f: Fixtures) => unknown
  admin: number
  member: number
}> = [
  { method: 'GET', path: () => '/users', admin: 200, member: 403 },
  { method: 'POST', path: () => '/users', body: () => userBody, admin: 201, member: 403 },
  { method: 'GET', path: () => '/users/2', admin: 200, member: 200 },
  {
    method: 'PUT',
    path: () => '/users/2',
    body: () => ({ name: 'member', email: 'member@example.com', status: 'active', role: 'member' }),
    admin: 200,
    member: 200,
  },
  {
    method: 'PATCH',
    path: () => '/users/2',
    body: () => ({ name: 'member-2' }),
    admin: 200,
    member: 200,
  },
  { method: 'DELETE', path: () => '/users/2', admin: 204, member: 403 },
  { method: 'GET', path: (f) => `/users/${f.other}`, admin: 200, member: 403 },
  {
    method: 'PUT',
    path: (f) => `/users/${f.other}`,
    body: () => userBody,
    admin: 200,
    member: 403,
  },
  {
    method: 'PATCH',
    path: (f) => `/users/${f.other}`,
    body: () => ({ name: 'x-other' }),
    admin: 200,
    member: 403,
  },
  { method: 'DELETE', path: (f) => `/users/${f.other}`, admin: 204, member: 403 },
  { method: 'GET', path: () => '/users/2/orders', admin: 200, member: 200 },
  { method: 'POST', path: () => '/users/2/orders', body: items, admin: 201, member: 201 },
  { method: 'GET', path: (f) => `/users/2/orders/${f.own}`, admin: 200, member: 200 },
  { method: 'GET', path: (f) => `/users/${f.other}/orders`, admin: 200, member: 403 },
  { method: 'POST', path: (f) => `/users/${f.other}/orders`, body: items, admin: 201, member: 403 },
  { method: 'GET', path: (f) => `/users/${f.other}/orders/${f.foreign}`, admin: 200, member: 403 },
  { method: 'GET', path: () => '/products', admin: 200, member: 200 },
  { method: 'POST', path: () => '/products', body: () => productBody, admin: 201, member: 403 },
  { method: 'GET', path: (f) => `/products/${f.productId}`, admin: 200, member: 200 },
  {
    method: 'PUT',
    path: (f) => `/products/${f.productId}`,
    body: () => productBody,
    admin: 200,
    member: 403,
  },
  {
    method: 'PATCH',
    path: (f) => `/products/${f.productId}`,
    body: () => ({ stock: 9 }),
    admin: 200,
    member: 403,
  },
  { method: 'DELETE', path: (f) => `/products/${f.productId}`, admin: 204, member: 403 },
  { method: 'GET', path: () => '/orders', admin: 200, member: 403 },
  {
    method: 'POST',
    path: () => '/orders',
    body: (f) => ({ userId: 2, ...items(f) }),
    admin: 201,
    member: 403,
  },
  { method: 'GET', path: (f) => `/orders/${f.own}`, admin: 200, member: 403 },
  {
    method: 'PUT',
    path: (f) => `/orders/${f.own}`,
    body: () => ({ status: 'cancelled', items: [] }),
    admin: 422,
    member: 403,
  },
  {
    method: 'PATCH',
    path: (f) => `/orders/${f.own}`,
    body: () => ({ status: 'pending' }),
    admin: 200,
    member: 403,
  },
  { method: 'DELETE', path: (f) => `/orders/${f.own}`, admin: 204, member: 403 },
  { method: 'DELETE', path: () => '/sessions/current', admin: 204, member: 204 },
]

const codeFor: Record<number, number | undefined> = {
  200: 0,
  201: 0,
  204: undefined,
  403: 40300,
  422: 42200,
}

describe('permissions of the fixed tokens (CONTRACT B4)', () => {
  for (const [who, token] of [
    ['admin', ADMIN],
    ['member', MEMBER],
  ] as const) {
    it.each(rows)(`${who}: $method %s`, async (row) => {
      const f = fixtures()
      const reply = await call(row.method, row.path(f), { token, body: row.body?.(f) })
      expect({ status: reply.status, code: reply.body?.code }).toEqual({
        status: row[who],
        code: codeFor[row[who]],
      })
    })
  }
})

describe('a 403 names the rule that refused (CONTRACT B4)', () => {
  it.each([
    ['GET', '/users/3', undefined, 'members may read only their own user'],
    ['PUT', '/users/3', {}, 'members may replace only their own user'],
    ['PATCH', '/users/2', { role: 'admin' }, 'only an admin may set or change role'],
    ['PATCH', '/users/2', { status: 'inactive' }, 'only an admin may set or change status'],
    ['GET', '/users', undefined, 'only an admin may list users'],
    ['GET', '/orders', undefined, 'only an admin may list orders'],
    ['DELETE', '/products/1', undefined, 'only an admin may delete a product'],
    ['GET', '/users/3/orders', undefined, 'members may list only their own orders'],
    ['POST', '/users/3/orders', { items: [] }, 'members may create only their own orders'],
  ])('%s %s', async (method, path, body, rule) => {
    const reply = await call(method, path, { token: MEMBER, ...(body ? { body } : {}) })
    expect(reply.status).toBe(403)
    expect(reply.body).toEqual({ code: 40300, message: `permission denied: ${rule}`, data: null })
  })
})
