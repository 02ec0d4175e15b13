import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'

/** Calls a sandbox in-process as the admin. */
function caller(sandbox: ReturnType<typeof createSandbox>) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await sandbox.fetch(path, {
      method,
      headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: await response.json() }
  }
}

const cents = fc.integer({ min: 0, max: 100_000_000 })
const line = fc.record({ priceCents: cents, quantity: fc.integer({ min: 1, max: 999 }) })

describe('order arithmetic (property-based)', () => {
  it('the total is exactly Σ quantity × unitPrice in cents, whatever the prices', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (lines) => {
        const sandbox = createSandbox({ users: 2, products: 0, orders: 0 })
        const call = caller(sandbox)
        const items = []
        for (const [index, { priceCents, quantity }] of lines.entries()) {
          const product = await call('POST', '/products', {
            name: `P${index}`,
            sku: `SKU-${index}`,
            price: priceCents / 100,
            stock: 999,
          })
          items.push({ productId: product.body.data.id, quantity })
        }
        const order = await call('POST', '/users/2/orders', { items })
        expect(order.status).toBe(201)
        const expectedCents = lines.reduce(
          (sum, { priceCents, quantity }) => sum + priceCents * quantity,
          0,
        )
        expect(order.body.data.total).toBe(expectedCents / 100)
        expect(Math.round(order.body.data.total * 100)).toBe(expectedCents)
      }),
      { numRuns: 60 },
    )
  })

  it('after any sequence of orders and cancels, stock = start − quantities of live orders', async () => {
    const command = fc.oneof(
      fc.record({
        kind: fc.constant('order' as const),
        lines: fc.array(
          fc.record({
            product: fc.integer({ min: 0, max: 3 }),
            quantity: fc.integer({ min: 1, max: 20 }),
          }),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
      }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(), paidFirst: fc.boolean() }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 4, maxLength: 4 }),
        fc.array(command, { maxLength: 25 }),
        async (startStock, commands) => {
          const sandbox = createSandbox({ users: 2, products: 0, orders: 0 })
          const call = caller(sandbox)
          const productIds: number[] = []
          for (const [index, stock] of startStock.entries()) {
            productIds.push(
              (
                await call('POST', '/products', {
                  name: `P${index}`,
                  sku: `SKU-${index}`,
                  price: 1,
                  stock,
                })
              ).body.data.id,
            )
          }
          const placed: number[] = []
          for (const step of commands) {
            if (step.kind === 'order') {
              const items = step.lines.map(({ product, quantity }) => ({
                productId: productIds[product]!,
                quantity,
              }))
              const reply = await call('POST', '/users/2/orders', { items })
              expect([201, 409]).toContain(reply.status)
              if (reply.status === 201) placed.push(reply.body.data.id)
            } else if (placed.length > 0) {
              const id = placed[step.pick % placed.length]!
              if (step.paidFirst) await call('PATCH', `/orders/${id}`, { status: 'paid' })
              await call('PATCH', `/orders/${id}`, { status: 'cancelled' })
            }
          }
          const live = sandbox.db.orders.all().filter((order) => order.status !== 'cancelled')
          for (const [index, productId] of productIds.entries()) {
            const held = live
              .flatMap((order) => order.items)
              .filter((item) => item.productId === productId)
            const taken = held.reduce((sum, item) => sum + item.quantity, 0)
            expect(sandbox.db.products.get(productId)!.stock).toBe(startStock[index]! - taken)
            expect(sandbox.db.products.get(productId)!.stock).toBeGreaterThanOrEqual(0)
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})
