import { describe, expect, it } from 'vitest'
import type { Row, UniqueKey } from '../../db/table.js'
import { Store } from '../../db/store.js'
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

// Undone when the write cannot be made durable (a data file on a full disk): the deleted records
// go back newest first. One by one, each found its place from the end past those put back before
// it and shifted the rows: quadratic in the records a cascade deleted. Timed as above.
describe('undoing a cascade is linear too', () => {
  const specs = [
    { name: 'users', unique: { email: (user: Row) => (user as Row & { email: UniqueKey }).email } },
    {
      name: 'orders',
      groups: { userId: (order: Row) => (order as Row & { userId: number }).userId },
    },
  ]
  function undo(count: number) {
    const users = [
      { id: 1, email: 'many@example.com' },
      { id: 2, email: 'few@example.com' },
    ]
    const orders = Array.from({ length: count + 3 }, (_, index) => ({
      id: index + 1,
      userId: index < count ? 1 : 2,
    }))
    const store = new Store(specs, { users, orders })
    store.track()
    const before = store.snapshot()
    const table = store.table<Row & { userId: number }>('orders')
    table.deleteMany(table.group('userId', 1))
    table.insert({ userId: 2 })
    store.table('users').delete(1)
    const changes = store.takeChanges()
    const started = performance.now()
    store.undo(changes)
    const ms = performance.now() - started
    // As it was: the records, the id sequences, the indexes.
    expect(store.snapshot()).toEqual({ ...before, nextIds: { users: 3, orders: count + 5 } })
    expect(table.group('userId', 1)).toHaveLength(count)
    expect(table.group('userId', 2)).toEqual([count + 1, count + 2, count + 3])
    expect(store.table('users').findUnique('email', 'many@example.com')?.id).toBe(1)
    const usersTable = store.table<Row & { email: string }>('users')
    expect(() => usersTable.insert({ email: 'many@example.com' })).toThrow(/already holds/)
    return ms
  }

  it('the orders of a user with 10,000 and with 40,000 put back', { timeout: 60_000 }, () => {
    const small = undo(10_000)
    const large = undo(40_000)
    expect(
      large,
      `${large.toFixed(0)} ms for 40,000 orders, ${small.toFixed(0)} ms for 10,000`,
    ).toBeLessThanOrEqual(small * 8 + 150)
  })
})
