import { describe, expect, it } from 'vitest'
import type { Order } from '../../index.js'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()

/** An active product with some stock, to order from. */
async function makeProduct(price = 19.99, stock = 10, status = 'active'): Promise<number> {
  const sku = `T-${sandbox.db.products.nextId}`
  const reply = await call('POST', '/products', {
    body: { name: `Thing ${sku}`, sku, price, stock, status },
  })
  return reply.body.data.id
}

const stockOf = (id: number) => sandbox.db.products.get(id)!.stock

async function placeFor(
  userId: number,
  items: Array<{ productId: number; quantity: number }>,
  token?: string,
) {
  return call('POST', `/users/${userId}/orders`, { body: { items }, token })
}

describe('placing orders', () => {
  it('copies name and unit price, totals in cents (3 × 19.99 = 59.97), takes stock', async () => {
    const productId = await makeProduct(19.99, 10)
    const reply = await placeFor(2, [{ productId, quantity: 3 }])
    expect(reply.status).toBe(201)
    expect(reply.headers.get('location')).toBe(`/users/2/orders/${reply.body.data.id}`)
    expect(reply.body.data).toMatchObject({
      userId: 2,
      status: 'pending',
      items: [{ productId, productName: `Thing T-31`, quantity: 3, unitPrice: 19.99 }],
      total: 59.97,
    })
    expect(stockOf(productId)).toBe(7)
  })

  it('POST /orders needs userId; the owner must exist', async () => {
    const productId = await makeProduct()
    const items = [{ productId, quantity: 1 }]
    expect((await call('POST', '/orders', { body: { items } })).body.message).toContain(
      'userId: is required',
    )
    const ghost = await call('POST', '/orders', { body: { userId: 999, items } })
    expect(ghost.status).toBe(422)
    expect(ghost.body.message).toContain('userId: user 999 does not exist')
    const placed = await call('POST', '/orders', { body: { userId: 5, items } })
    expect(placed.status).toBe(201)
    expect(placed.headers.get('location')).toBe(`/orders/${placed.body.data.id}`)
    expect(placed.body.data.userId).toBe(5)
  })

  it('the owner of a nested order comes from the path, not the body', async () => {
    const productId = await makeProduct()
    const reply = await call('POST', '/users/2/orders', {
      body: { userId: 7, items: [{ productId, quantity: 1 }] },
    })
    expect(reply.body.data.userId).toBe(2)
  })

  it('422 / 42200 naming each missing or inactive product, and no stock moves', async () => {
    const good = await makeProduct(5, 10)
    const inactive = await makeProduct(5, 10, 'inactive')
    const reply = await placeFor(2, [
      { productId: good, quantity: 1 },
      { productId: 999, quantity: 1 },
      { productId: inactive, quantity: 1 },
    ])
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain('items[1].productId: product 999 does not exist')
    expect(reply.body.message).toContain(`items[2].productId: product ${inactive} is inactive`)
    expect(stockOf(good)).toBe(10)
  })

  it.each([
    [{ items: [] }, 'items: must have at least 1 item'],
    [
      { items: Array.from({ length: 51 }, () => ({ productId: 1, quantity: 1 })) },
      'items: must have at most 50 items',
    ],
    [{ items: [{ productId: 1, quantity: 0 }] }, 'items[0].quantity: must be at least 1'],
    [{ items: [{ productId: 1, quantity: 1000 }] }, 'items[0].quantity: must be at most 999'],
    [{ items: [{ productId: 1, quantity: 1.5 }] }, 'items[0].quantity: must be an integer'],
    // An id past what a number holds and one below it are told the same bound: the tighter.
    [
      { items: [{ productId: 2 ** 53, quantity: 1 }] },
      'items[0].productId: must be at most 2147483647',
    ],
    [
      { items: [{ productId: 2 ** 53 - 1, quantity: 1 }] },
      'items[0].productId: must be at most 2147483647',
    ],
    [{ items: [{ quantity: 1 }] }, 'items[0].productId: is required'],
    [{}, 'items: is required'],
  ])('422 for %j: %s', async (body, message) => {
    const reply = await call('POST', '/users/2/orders', { body })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(message)
  })

  it('409 / 40901 when stock is short; all-or-nothing', async () => {
    const plenty = await makeProduct(1, 100)
    const scarce = await makeProduct(1, 2)
    const reply = await placeFor(2, [
      { productId: plenty, quantity: 5 },
      { productId: scarce, quantity: 3 },
    ])
    expect(reply.status).toBe(409)
    expect(reply.body).toMatchObject({ code: 40901, data: null })
    expect([stockOf(plenty), stockOf(scarce)]).toEqual([100, 2])
  })

  it('counts the same product on two lines together', async () => {
    const productId = await makeProduct(1, 5)
    const reply = await placeFor(2, [
      { productId, quantity: 3 },
      { productId, quantity: 3 },
    ])
    expect(reply.body.code).toBe(40901)
    expect(stockOf(productId)).toBe(5)
  })
})

describe('order status and items', () => {
  async function pendingOrder(quantity = 2): Promise<{ order: Order; productId: number }> {
    const productId = await makeProduct(10, 10)
    const order = (await placeFor(2, [{ productId, quantity }])).body.data
    return { order, productId }
  }

  const patch = (id: number, body: unknown) => call('PATCH', `/orders/${id}`, { body })

  it('walks pending → paid → shipped → delivered', async () => {
    const { order } = await pendingOrder()
    for (const status of ['paid', 'shipped', 'delivered']) {
      const reply = await patch(order.id, { status })
      expect(reply.status).toBe(200)
      expect(reply.body.data.status).toBe(status)
    }
  })

  it.each([
    [['paid'], 'pending'],
    [[], 'shipped'],
    [[], 'delivered'],
    [['paid', 'shipped'], 'cancelled'],
    [['paid', 'shipped', 'delivered'], 'cancelled'],
    [['cancelled'], 'pending'],
    [['cancelled'], 'paid'],
  ])('after %j, → %s is 409 / 40902', async (path, next) => {
    const { order } = await pendingOrder()
    for (const status of path) expect((await patch(order.id, { status })).status).toBe(200)
    const reply = await patch(order.id, { status: next })
    expect(reply.status).toBe(409)
    expect(reply.body).toMatchObject({ code: 40902, data: null })
  })

  it('cancelling returns the stock, from pending and from paid', async () => {
    const first = await pendingOrder(4)
    expect(stockOf(first.productId)).toBe(6)
    await patch(first.order.id, { status: 'cancelled' })
    expect(stockOf(first.productId)).toBe(10)
    const second = await pendingOrder(4)
    await patch(second.order.id, { status: 'paid' })
    await patch(second.order.id, { status: 'cancelled' })
    expect(stockOf(second.productId)).toBe(10)
  })

  it('stock given back stops at 2^53 − 1, so the data stays a document the sandbox loads', async () => {
    const { order, productId } = await pendingOrder(4)
    const most = Number.MAX_SAFE_INTEGER
    expect((await call('PATCH', `/products/${productId}`, { body: { stock: most } })).status).toBe(
      200,
    )
    expect((await patch(order.id, { status: 'cancelled' })).status).toBe(200)
    expect(stockOf(productId)).toBe(most)
    const document = (await call('GET', '/__sandbox/db')).body.data
    expect((await call('PUT', '/__sandbox/db', { body: document })).status).toBe(200)
  })

  it('items change while pending, moving stock and the total', async () => {
    const { order, productId } = await pendingOrder(2)
    const other = await makeProduct(2.5, 10)
    const reply = await patch(order.id, { items: [{ productId: other, quantity: 4 }] })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({
      total: 10,
      items: [{ productId: other, unitPrice: 2.5, quantity: 4 }],
    })
    expect([stockOf(productId), stockOf(other)]).toEqual([10, 6])
  })

  it('items cannot change once paid (409 / 40902), but sending them unchanged is fine', async () => {
    const { order, productId } = await pendingOrder(2)
    await patch(order.id, { status: 'paid' })
    const changed = await patch(order.id, { items: [{ productId, quantity: 1 }] })
    expect(changed.body.code).toBe(40902)
    const same = await call('PUT', `/orders/${order.id}`, {
      body: { status: 'shipped', items: [{ productId, quantity: 2 }] },
    })
    expect(same.status).toBe(200)
    expect(same.body.data.status).toBe('shipped')
  })

  it('PUT needs status and items; userId and total are read-only', async () => {
    const { order } = await pendingOrder()
    expect((await call('PUT', `/orders/${order.id}`, { body: { status: 'paid' } })).status).toBe(
      422,
    )
    const reply = await patch(order.id, { status: 'paid', userId: 9, total: 1 })
    expect(reply.body.data).toMatchObject({ userId: 2, total: order.total })
  })

  it('changing items needs the stock for them', async () => {
    const { order } = await pendingOrder(2)
    const scarce = await makeProduct(1, 1)
    const reply = await patch(order.id, { items: [{ productId: scarce, quantity: 2 }] })
    expect(reply.body.code).toBe(40901)
  })

  it('items sent with a cancel change first, while pending: their stock is checked, then all given back', async () => {
    const { order, productId } = await pendingOrder(2)
    const scarce = await makeProduct(1, 5)
    const short = await patch(order.id, {
      status: 'cancelled',
      items: [{ productId: scarce, quantity: 100 }],
    })
    expect([short.status, short.body.code]).toEqual([409, 40901])
    expect([stockOf(productId), stockOf(scarce)]).toEqual([8, 5])
    const enough = await patch(order.id, {
      status: 'cancelled',
      items: [{ productId: scarce, quantity: 3 }],
    })
    expect(enough.status).toBe(200)
    expect(enough.body.data).toMatchObject({
      status: 'cancelled',
      items: [{ productId: scarce, quantity: 3 }],
    })
    expect([stockOf(productId), stockOf(scarce)]).toEqual([10, 5])
  })

  it('DELETE gives stock back for a pending order, not for a shipped one', async () => {
    const pending = await pendingOrder(3)
    expect((await call('DELETE', `/orders/${pending.order.id}`)).status).toBe(204)
    expect(stockOf(pending.productId)).toBe(10)
    const shipped = await pendingOrder(3)
    await patch(shipped.order.id, { status: 'paid' })
    await patch(shipped.order.id, { status: 'shipped' })
    await call('DELETE', `/orders/${shipped.order.id}`)
    expect(stockOf(shipped.productId)).toBe(7)
  })
})

describe('orders of a user (nested)', () => {
  const otherOrder = () => sandbox.db.orders.all().find((order) => order.userId !== 2)!

  it('lists only that user’s orders, with the query rules', async () => {
    const { body } = await call('GET', '/users/2/orders?pageSize=100')
    const own = sandbox.db.orders.all().filter((order) => order.userId === 2)
    expect(body.data.total).toBe(own.length)
    expect(body.data.list).toEqual(own)
    const status = own[0]!.status
    const filtered = (await call('GET', `/users/2/orders?status=${status}&fields=id,status`)).body
      .data
    expect(filtered.list).toEqual(
      own.filter((order) => order.status === status).map(({ id }) => ({ id, status })),
    )
  })

  it('searches item product names', async () => {
    const name = sandbox.db.orders.get(1)!.items[0]!.productName
    const { list } = (
      await call('GET', `/orders?keyword=${encodeURIComponent(name.toUpperCase())}&pageSize=100`)
    ).body.data
    expect(list.length).toBeGreaterThan(0)
    for (const order of list as Order[])
      expect(order.items.some((item) => item.productName === name)).toBe(true)
  })

  it('404 when the user does not exist, and when the order is not that user’s', async () => {
    expect((await call('GET', '/users/999/orders')).body.code).toBe(40400)
    expect((await call('GET', '/users/999/orders/1')).body.code).toBe(40400)
    const other = otherOrder()
    const reply = await call('GET', `/users/2/orders/${other.id}`)
    expect(reply.status).toBe(404)
    expect((await call('GET', `/users/${other.userId}/orders/${other.id}`)).body.data).toEqual(
      other,
    )
  })

  it('a member reads and places their own orders, no one else’s', async () => {
    const own = sandbox.db.orders.all().find((order) => order.userId === 2)!
    expect((await call('GET', `/users/2/orders/${own.id}`, { token: MEMBER })).status).toBe(200)
    expect(
      (await call('GET', `/users/2/orders/${otherOrder().id}`, { token: MEMBER })).status,
    ).toBe(404)
    const productId = await makeProduct()
    expect((await placeFor(2, [{ productId, quantity: 1 }], MEMBER)).status).toBe(201)
    expect((await placeFor(3, [{ productId, quantity: 1 }], MEMBER)).status).toBe(403)
    expect((await call('GET', '/users/3/orders', { token: MEMBER })).status).toBe(403)
    expect((await call('GET', '/orders', { token: MEMBER })).status).toBe(403)
    expect((await call('GET', `/orders/${own.id}`, { token: MEMBER })).status).toBe(403)
    expect(
      (await call('PATCH', `/orders/${own.id}`, { token: MEMBER, body: { status: 'cancelled' } }))
        .status,
    ).toBe(403)
  })

  it('/orders filters by userId', async () => {
    const { list, total } = (await call('GET', '/orders?userId=2&pageSize=100')).body.data
    expect(total).toBe(sandbox.db.orders.all().filter((order) => order.userId === 2).length)
    expect(list.every((order: Order) => order.userId === 2)).toBe(true)
    expect((await call('GET', '/orders?userId=abc')).body.code).toBe(40000)
    expect((await call('GET', '/orders?userId=0')).body.code).toBe(40000)
  })

  it.each(['sort=name', 'sort=userId', 'status=active'])('400 for /orders?%s', async (query) => {
    expect((await call('GET', `/orders?${query}`)).body.code).toBe(40000)
  })
})

describe('validation in one pass: every failing field of a body in one 422, references included', () => {
  it.each([
    [
      'POST',
      '/orders',
      { userId: 9999, items: [{ productId: 1, quantity: 0 }] },
      ['userId: user 9999 does not exist', 'items[0].quantity'],
    ],
    [
      'POST',
      '/orders',
      { userId: 9999, items: [{ productId: 9999, quantity: 1 }, { productId: 1 }] },
      [
        'userId: user 9999 does not exist',
        'items[0].productId: product 9999 does not exist',
        'items[1].quantity',
      ],
    ],
    [
      'PUT',
      '/orders/5',
      { items: [{ productId: 9999, quantity: 1 }] },
      ['status', 'items[0].productId: product 9999 does not exist'],
    ],
    [
      'PATCH',
      '/orders/5',
      { status: 'lost', items: [{ productId: 9999, quantity: 1 }] },
      ['status', 'items[0].productId: product 9999 does not exist'],
    ],
    [
      'POST',
      '/users/3/orders',
      { items: [{ productId: 9999, quantity: -1 }] },
      ['items[0].productId: product 9999 does not exist', 'items[0].quantity'],
    ],
  ])('%s %s names each problem', async (method, path, body, named) => {
    const before = sandbox.snapshot()
    const reply = await call(method, path, { body })
    expect(reply.status).toBe(422)
    expect(reply.body.code).toBe(42200)
    for (const part of named) expect(reply.body.message).toContain(part)
    expect(sandbox.snapshot()).toEqual(before)
  })
})
