import type { Store } from '../db/store.js'
import { REFERENCE_DATE } from '../resources/seed.js'
import type { ScenarioDefinition } from '../state/scenarios.js'
import { defineScenario } from '../state/scenarios.js'
import { fixedAccounts } from './accounts.js'
import { orderTotal } from './money.js'
import type { Order, OrderItem, OrderStatus } from './orders.js'
import { orderStatusSchema } from './orders.js'
import type { Product } from './products.js'
import type { User } from './users.js'

/** The member account (CONTRACT B4: user 2): the scenarios set up what the member sees. */
const MEMBER = fixedAccounts[1]!.id

/**
 * The Shop API's named scenarios (CONTRACT C5), besides `default` (the seed). Each is
 * deterministic: the same scenario gives byte-identical data everywhere.
 */
export const shopScenarios: readonly ScenarioDefinition[] = [
  defineScenario({
    name: 'empty',
    description: 'The two fixed accounts only: no other users, no products, no orders',
    // Loaded, not deleted: the id sequences start after what is left (users 3, products and
    // orders 1), as in a shop that never had more; records deleted would keep the seed's.
    data: (db: Store) => {
      db.table<Order>('orders').load([])
      db.table<Product>('products').load([])
      const accounts = new Set<number>(fixedAccounts.map((account) => account.id))
      const users = db.table<User>('users')
      users.load(users.all().filter((user) => accounts.has(user.id)))
    },
  }),
  defineScenario({
    name: 'out-of-stock',
    description: 'The seeded shop with every product out of stock (stock 0)',
    data: (db: Store) => {
      const products = db.table<Product>('products')
      for (const product of products.all()) products.replace({ ...product, stock: 0 })
    },
  }),
  defineScenario({
    name: 'orders-in-every-status',
    description: 'The seeded shop where the member owns an order in each of the five statuses',
    data: (db: Store) => {
      const orders = db.table<Order>('orders')
      const product = db.table<Product>('products').all()[0]
      if (!product) return
      const owned = new Set(
        orders
          .all()
          .filter((order) => order.userId === MEMBER)
          .map((order) => order.status),
      )
      let hour = 0
      for (const status of orderStatusSchema.options as readonly OrderStatus[]) {
        if (owned.has(status)) continue
        const at = new Date(Date.parse(REFERENCE_DATE) - ++hour * 3_600_000).toISOString()
        const items: OrderItem[] = [
          {
            productId: product.id,
            productName: product.name,
            quantity: 1,
            unitPrice: product.price,
          },
        ]
        orders.insert({
          userId: MEMBER,
          status,
          items,
          total: orderTotal(items),
          createdAt: at,
          updatedAt: at,
        })
      }
    },
  }),
  defineScenario({
    name: 'big',
    description: 'A large shop: 10,000 users, 1,000 products and 20,000 orders',
    data: { counts: { users: 10_000, products: 1_000, orders: 20_000 } },
  }),
  defineScenario({
    name: 'slow',
    description: 'The seeded shop on a slow network: every answer delayed 800-2,000 ms',
    settings: { delay: { min: 800, max: 2_000 } },
  }),
  defineScenario({
    name: 'flaky',
    description:
      'The seeded shop on a flaky backend: a fifth of answers fail (500 or 503), one in twenty connections drops',
    settings: { errorRate: 0.2, dropRate: 0.05 },
  }),
]
