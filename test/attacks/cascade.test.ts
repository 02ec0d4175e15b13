import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'

// A delete cascades to every record pointing at the one deleted (CONTRACT B1: a user's orders);
// the work must be linear in them. Deleted one by one, each order shifted the table's rows and
// copied its user's list of orders: a user with 20,000 orders held the event loop for ~6 s, with
// 40,000 for ~26 s. Timed at two sizes in one run: four times the orders may cost at most eight
// times as long (linear: four; quadratic: sixteen), plus a floor for a busy machine.
const admin = { authorization: 'Bearer sandbox-admin-token' }
const at = '2024-01-01T00:00:00.000Z'
const user = (id: number, name: string, role: string) => ({
  id,
  name,
  email: `${name}@example.com`,
  status: 'active',
  role,
  createdAt: at,
  updatedAt: at,
})

/** A data set where user 2 has `count` orders (half pending) and user 3 has three. */
function document(count: number) {
  const order = (id: number, userId: number) => ({
    id,
    userId,
    status: id % 2 === 0 ? 'pending' : 'delivered',
    items: [{ productId: 1, productName: 'Lamp', quantity: 1, unitPrice: 2 }],
    total: 2,
    createdAt: at,
    updatedAt: at,
  })
  return {
    users: [user(1, 'admin', 'admin'), user(2, 'many', 'member'), user(3, 'few', 'member')],
    products: [
      {
        id: 1,
        name: 'Lamp',
        sku: 'LAMP-1',
        price: 2,
        stock: 0,
        status: 'active',
        createdAt: at,
        updatedAt: at,
      },
    ],
    orders: [
      ...Array.from({ length: count }, (_, index) => order(index + 1, 2)),
      ...[1, 2, 3].map((n) => order(count + n, 3)),
    ],
  }
}

async function deleteManyOrders(count: number) {
  const sandbox = createSandbox({
    baseUrl: 'http://shop.test',
    maxDocumentBytes: 64 * 1024 * 1024,
  })
  const send = (method: string, path: string, body?: unknown) =>
    sandbox.fetch(`http://shop.test${path}`, {
      method,
      headers: { ...admin, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  expect((await send('PUT', '/__sandbox/db', document(count))).status).toBe(200)
  const started = performance.now()
  const deleted = await send('DELETE', '/users/2')
  const ms = performance.now() - started
  expect(deleted.status).toBe(204)
  return { ms, send }
}

describe('a cascading delete is linear in what it removes', () => {
  it(
    'DELETE /users/{id} of a user with 5,000 and with 20,000 orders',
    { timeout: 60_000 },
    async () => {
      const small = await deleteManyOrders(5_000)
      const large = await deleteManyOrders(20_000)
      expect(
        large.ms,
        `${large.ms.toFixed(0)} ms for 20,000 orders, ${small.ms.toFixed(0)} ms for 5,000`,
      ).toBeLessThanOrEqual(small.ms * 8 + 150)
      // What is left is what should be: user 3's orders, in order, and the stock of the 10,000
      // pending orders given back.
      const { send } = large
      const orders = (await (await send('GET', '/orders?pageSize=100')).json()) as {
        data: { list: Array<{ id: number; userId: number }>; total: number }
      }
      expect(orders.data.total).toBe(3)
      expect(orders.data.list.map(({ id }) => id)).toEqual([20_001, 20_002, 20_003])
      const nested = (await (await send('GET', '/users/3/orders')).json()) as {
        data: { total: number }
      }
      expect(nested.data.total).toBe(3)
      expect((await send('GET', '/users/2/orders')).status).toBe(404)
      const lamp = (await (await send('GET', '/products/1')).json()) as { data: { stock: number } }
      expect(lamp.data.stock).toBe(10_000)
    },
  )
})
