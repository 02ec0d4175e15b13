import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { priceSchema } from '../../index.js'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const widget = { name: 'Widget', sku: 'WID-001', price: 19.99, stock: 10 }

describe('products', () => {
  it('lists with the query rules: keyword over name and sku, sort by price', async () => {
    const { sku } = sandbox.db.products.get(3)!
    const bySku = await call('GET', `/products?keyword=${sku.toLowerCase()}&fields=id,sku`)
    expect(bySku.body.data).toEqual({ list: [{ id: 3, sku }], total: 1, page: 1, pageSize: 20 })
    const { list } = (await call('GET', '/products?sort=price&order=desc&pageSize=100')).body.data
    const prices = list.map((product: { price: number }) => product.price)
    expect(prices).toEqual([...prices].sort((a, b) => b - a))
  })

  it.each(['sort=status', 'sort=role', 'status=pending', 'fields=id,email'])(
    '400 for ?%s',
    async (query) => {
      expect((await call('GET', `/products?${query}`)).body.code).toBe(40000)
    },
  )

  it('creates a product: 201, defaults to active', async () => {
    const { status, headers, body } = await call('POST', '/products', { body: widget })
    expect(status).toBe(201)
    expect(headers.get('location')).toBe('/products/31')
    expect(body.data).toMatchObject({ id: 31, ...widget, status: 'active' })
  })

  it('409 / 40003 for a SKU that exists', async () => {
    const { sku } = sandbox.db.products.get(1)!
    const reply = await call('POST', '/products', { body: { ...widget, sku } })
    expect(reply.status).toBe(409)
    expect(reply.body).toMatchObject({ code: 40003, data: null })
  })

  it.each([
    [{ ...widget, sku: 'wid-001' }, 'sku: must match'],
    [{ ...widget, sku: 'AB' }, 'sku: must match'],
    [{ ...widget, sku: 'A'.repeat(33) }, 'sku: must match'],
    [{ ...widget, price: -1 }, 'price: must be at least 0'],
    [{ ...widget, price: 1_000_000.01 }, 'price: must be at most 1000000'],
    [{ ...widget, price: 1.005 }, 'price: must have at most 2 decimals'],
    // Written decimals, however small, are not float noise.
    [{ ...widget, price: 1.00000001 }, 'price: must have at most 2 decimals'],
    [{ ...widget, price: 19.990000001 }, 'price: must have at most 2 decimals'],
    [{ ...widget, price: '9.99' }, 'price: must be a number'],
    [{ ...widget, stock: -1 }, 'stock: must be at least 0'],
    [{ ...widget, stock: 1.5 }, 'stock: must be an integer'],
    [{ ...widget, name: '   ' }, 'name: must be at least 1 character'],
    [{ ...widget, name: 'n'.repeat(101) }, 'name: must be at most 100 characters'],
    [{ sku: 'X-1' }, 'name: is required'],
  ])('422 for %j: %s', async (body, message) => {
    const reply = await call('POST', '/products', { body })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(message)
  })

  it('accepts the bounds: price 0 and 1,000,000, stock 0', async () => {
    for (const [index, price] of [0, 1_000_000].entries()) {
      const reply = await call('POST', '/products', {
        body: { ...widget, sku: `EDGE-${index}`, price, stock: 0 },
      })
      expect(reply.status).toBe(201)
    }
  })

  it('keeps prices in whole cents', async () => {
    const reply = await call('POST', '/products', { body: { ...widget, price: 0.1 + 0.2 } })
    expect(reply.body.data.price).toBe(0.3)
  })

  it('takes every amount of whole cents up to 1,000,000, and float noise of a few of them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 1, max: 9 }),
        (cents, times) => {
          expect(priceSchema.safeParse(cents / 100).data).toBe(cents / 100)
          // What a client computing a total in floats sends (3 × 19.99 = 59.97000000000001).
          const product = (cents / 100) * times
          if (product <= 1_000_000)
            expect(priceSchema.safeParse(product).data).toBe(Math.round(product * 100) / 100)
        },
      ),
    )
  })

  it('PUT needs every writable field; PATCH changes one', async () => {
    expect((await call('PUT', '/products/1', { body: { name: 'only a name' } })).status).toBe(422)
    const put = await call('PUT', '/products/1', { body: { ...widget, status: 'inactive' } })
    expect(put.body.data).toMatchObject({ id: 1, ...widget, status: 'inactive' })
    const patch = await call('PATCH', '/products/1', { body: { stock: 3 } })
    expect(patch.body.data).toMatchObject({ ...widget, stock: 3 })
  })

  it('PATCH to another product’s SKU is 409 / 40003', async () => {
    const { sku } = sandbox.db.products.get(2)!
    expect((await call('PATCH', '/products/1', { body: { sku } })).body.code).toBe(40003)
  })

  it('DELETE answers 204 and the product is gone', async () => {
    const id = (await call('POST', '/products', { body: widget })).body.data.id
    expect((await call('DELETE', `/products/${id}`)).status).toBe(204)
    expect((await call('GET', `/products/${id}`)).body).toMatchObject({
      code: 40400,
      message: `product ${id} not found`,
    })
  })

  it('DELETE of a product orders contain deletes those orders; pending ones give back other stock', async () => {
    const keep = (await call('POST', '/products', { body: widget })).body.data.id
    const doomed = (await call('POST', '/products', { body: { ...widget, sku: 'WID-002' } })).body
      .data.id
    const order = (
      await call('POST', '/users/2/orders', {
        body: {
          items: [
            { productId: keep, quantity: 4 },
            { productId: doomed, quantity: 1 },
          ],
        },
      })
    ).body.data
    expect(sandbox.db.products.get(keep)!.stock).toBe(6)
    expect((await call('DELETE', `/products/${doomed}`)).status).toBe(204)
    expect((await call('GET', `/orders/${order.id}`)).status).toBe(404)
    expect(sandbox.db.products.get(keep)!.stock).toBe(10)
    const referenced = new Set(
      sandbox.db.orders.all().flatMap((o) => o.items.map((item) => item.productId)),
    )
    expect(referenced.has(doomed)).toBe(false)
  })

  it('members read products and nothing else', async () => {
    expect((await call('GET', '/products?status=active', { token: MEMBER })).status).toBe(200)
    expect((await call('GET', '/products/1?fields=name', { token: MEMBER })).status).toBe(200)
    expect((await call('POST', '/products', { token: MEMBER, body: widget })).status).toBe(403)
    expect((await call('PATCH', '/products/1', { token: MEMBER, body: { stock: 1 } })).status).toBe(
      403,
    )
    expect((await call('DELETE', '/products/1', { token: MEMBER })).status).toBe(403)
  })
})
