import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { checkDocument, fixedAccounts, REFERENCE_DATE, seedData } from '../../index.js'

describe('seeding', () => {
  it('the same seed and counts give byte-identical data', () => {
    expect(JSON.stringify(seedData({ seed: 7 }))).toBe(JSON.stringify(seedData({ seed: 7 })))
    expect(seedData({ seed: 7, users: 12, products: 4, orders: 9 })).toEqual(
      seedData({ seed: 7, users: 12, products: 4, orders: 9 }),
    )
  })

  it('a different seed gives different data', () => {
    const a = seedData({ seed: 1 })
    const b = seedData({ seed: 2 })
    expect(a.users.slice(2)).not.toEqual(b.users.slice(2))
    expect(a.products).not.toEqual(b.products)
  })

  it('pins a known value, so a change in generation is noticed', () => {
    const { users, products } = seedData({ seed: 1 })
    expect(users[2]!.name).toMatchInlineSnapshot(`"Myrtie.Casper2"`)
    expect(products[0]!.sku).toMatchInlineSnapshot(`"HCD-07575"`)
    const digest = createHash('sha256').update(JSON.stringify(seedData())).digest('hex')
    expect(digest).toMatchInlineSnapshot(
      `"c3351b7179f645abf370635c1be883ae10010c021eb1f4636f0824c7b5de1730"`,
    )
  })

  it('has the default counts: 50 users, 30 products, 100 orders', () => {
    const data = seedData()
    expect([data.users.length, data.products.length, data.orders.length]).toEqual([50, 30, 100])
    expect(data.nextIds).toEqual({ users: 51, products: 31, orders: 101 })
  })

  it('users 1 and 2 are the fixed accounts', () => {
    const [admin, member] = seedData().users
    expect(admin).toMatchObject({ ...fixedAccounts[0], status: 'active' })
    expect(member).toMatchObject({ ...fixedAccounts[1], status: 'active' })
  })

  it('is valid against the schemas and references, with unique names, e-mails and SKUs', () => {
    for (const seed of [1, 2, 3, 99]) {
      const check = checkDocument(seedData({ seed, users: 300, products: 40, orders: 500 }))
      expect(check).toMatchObject({ ok: true })
    }
  })

  it('orders are consistent: real products, exact totals, all five statuses, after their owner', () => {
    const data = seedData()
    const users = new Map(data.users.map((user) => [user.id, user]))
    const products = new Map(data.products.map((product) => [product.id, product]))
    expect(new Set(data.orders.map((order) => order.status))).toEqual(
      new Set(['pending', 'paid', 'shipped', 'delivered', 'cancelled']),
    )
    for (const order of data.orders) {
      expect(order.createdAt > users.get(order.userId)!.createdAt).toBe(true)
      for (const item of order.items) {
        expect(products.get(item.productId)!.name).toBe(item.productName)
        expect(products.get(item.productId)!.price).toBe(item.unitPrice)
      }
    }
    expect(data.orders.filter((order) => order.userId === 2).length).toBeGreaterThanOrEqual(3)
  })

  it('never depends on the clock: every timestamp lies before the reference date', () => {
    const data = seedData()
    const stamps = [...data.users, ...data.products, ...data.orders].flatMap((r) => [
      r.createdAt,
      r.updatedAt,
    ])
    expect(stamps.every((stamp) => stamp < REFERENCE_DATE)).toBe(true)
  })

  it.each([
    [{ users: 1 }, 'users: must be an integer from 2'],
    [{ users: 1.5 }, 'users: must be an integer'],
    [{ orders: 3, products: 0 }, 'orders need products'],
  ])('rejects %j', (options, message) => {
    expect(() => seedData(options)).toThrow(message)
  })
})
