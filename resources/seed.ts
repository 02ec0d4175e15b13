import type { Faker } from '@faker-js/faker'
// The package's index evaluates every locale (~100 ms); the base locale's module holds just the
// Faker class (through its instance), which is all the seeder needs with its own locale slice.
import { faker as baseFaker } from '@faker-js/faker/locale/base'
import { seedLocale } from './faker-locale.js'
import { orderTotal } from '../contract/money.js'
import type { Order, OrderItem, OrderStatus } from '../shop/order-schema.js'
import type { Product } from '../shop/product-schema.js'
import type { ProgressReporter } from '../db/progress.js'
import { PROGRESS_STEP } from '../db/progress.js'
import type { DbSnapshot } from '../db/store.js'
import { foldCase } from '../db/store.js'
import type { User } from '../shop/user-schema.js'
import { definedOnly } from '../db/defined-only.js'

const FakerClass = baseFaker.constructor as typeof Faker

/** How much data to generate, and from which seed. */
export interface SeedOptions {
  /** Seed of the generator: the same seed and counts give byte-identical data. Default 1. */
  seed?: number
  /** Number of users, at least 2 (users 1 and 2 are the fixed accounts). Default 50. */
  users?: number
  /** Number of products. Default 30. */
  products?: number
  /** Number of orders, spread over the users. Default 100; needs at least one product. */
  orders?: number
}

export const seedDefaults = { seed: 1, users: 50, products: 30, orders: 100 } as const

/** The seeds a sandbox accepts, [min, max]: any safe integer (the CLI's `--seed` takes the same). */
export const seedLimits = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] as const

/** The counts a sandbox accepts, [min, max]: users 1 and 2 are the fixed accounts. */
export const countLimits = {
  users: [2, 1_000_000],
  products: [0, 1_000_000],
  orders: [0, 1_000_000],
} as const

/** Every generated timestamp lies before this fixed date, so data never depends on the clock. */
export const REFERENCE_DATE = '2026-01-01T00:00:00.000Z'

/** The password of every seeded user. */
export const SEED_PASSWORD = 'password'

/** The fixed accounts of CONTRACT B4. */
export const fixedAccounts = [
  { id: 1, name: 'admin', email: 'admin@example.com', status: 'active', role: 'admin' },
  { id: 2, name: 'member', email: 'member@example.com', status: 'active', role: 'member' },
] as const

const DAY = 86_400_000
const orderStatuses: OrderStatus[] = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']

/** Fills in defaults and checks the counts; throws a message fit for a CLI. */
export function resolveSeedOptions(options: SeedOptions = {}): Required<SeedOptions> {
  const resolved = { ...seedDefaults, ...definedOnly(options) }
  if (!Number.isSafeInteger(resolved.seed))
    throw new RangeError(`seed must be a safe integer, got ${resolved.seed}`)
  for (const [name, [min, max]] of Object.entries(countLimits)) {
    const value = resolved[name as keyof typeof countLimits]
    if (!Number.isSafeInteger(value) || value < min || value > max)
      throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`)
  }
  if (resolved.orders > 0 && resolved.products === 0) {
    throw new RangeError(`orders need products: got ${resolved.orders} orders and 0 products`)
  }
  return resolved
}

/**
 * Generates the sandbox's data set, deterministically: faker is seeded and every date is
 * derived from {@link REFERENCE_DATE}, never from the clock.
 *
 * @example
 * const data = seedData({ seed: 7, users: 10, products: 5, orders: 20 })
 */
export function seedData(options: SeedOptions = {}, onProgress?: ProgressReporter): DbSnapshot {
  const counts = resolveSeedOptions(options)
  const total = counts.users + counts.products + counts.orders
  const report = (done: number) => onProgress?.('generating', done, total)
  const faker = new FakerClass({ locale: [seedLocale], seed: counts.seed })
  const reference = Date.parse(REFERENCE_DATE)
  const users = seedUsers(faker, counts.users, reference, report)
  const products = seedProducts(faker, counts.products, reference)
  report(users.length + products.length)
  const orders = seedOrders(faker, counts.orders, users, products, reference, (done) =>
    report(users.length + products.length + done),
  )
  report(total)
  return {
    users,
    products,
    orders,
    nextIds: { users: users.length + 1, products: products.length + 1, orders: orders.length + 1 },
  }
}

/** `count` ascending timestamps between `from` and `to`, with a matching later `updatedAt`. */
function timeline(faker: Faker, count: number, from: number, to: number) {
  const created = Array.from({ length: count }, () => faker.number.int({ min: from, max: to }))
  created.sort((a, b) => a - b)
  return created.map((time) => {
    const createdAt = new Date(time).toISOString()
    // Most records were never changed after creation; those share one string (less memory).
    const changed = faker.number.int({ min: 0, max: 9 }) < 3
    return {
      createdAt,
      updatedAt: changed
        ? new Date(faker.number.int({ min: time, max: to })).toISOString()
        : createdAt,
    }
  })
}

function uniqueValue(taken: Set<string>, candidate: string, vary: (n: number) => string): string {
  let value = candidate
  for (let n = 2; taken.has(foldCase(value)); n++) value = vary(n)
  taken.add(foldCase(value))
  return value
}

function seedUsers(
  faker: Faker,
  count: number,
  reference: number,
  report: (done: number) => void,
): User[] {
  const times = timeline(faker, count, reference - 730 * DAY, reference - 90 * DAY)
  const names = new Set<string>()
  const emails = new Set<string>()
  return times.map((time, index) => {
    if (index % PROGRESS_STEP === 0) report(index)
    const fixed = fixedAccounts[index]
    if (fixed) {
      names.add(fixed.name)
      emails.add(fixed.email)
      return { ...fixed, ...time }
    }
    const firstName = faker.person.firstName()
    const lastName = faker.person.lastName()
    const username = faker.internet
      .username({ firstName, lastName })
      .replace(/[^A-Za-z0-9._-]/g, '')
      .slice(0, 40)
      .padEnd(2, '0')
    const name = uniqueValue(names, username, (n) => `${username}${n}`)
    const local = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z0-9.]/g, '')
    const domain = faker.helpers.arrayElement(['example.com', 'example.org', 'example.net'])
    const email = uniqueValue(emails, `${local}@${domain}`, (n) => `${local}${n}@${domain}`)
    return {
      id: index + 1,
      name,
      email,
      status: faker.helpers.weightedArrayElement([
        { weight: 85, value: 'active' as const },
        { weight: 15, value: 'inactive' as const },
      ]),
      role: faker.helpers.weightedArrayElement([
        { weight: 95, value: 'member' as const },
        { weight: 5, value: 'admin' as const },
      ]),
      ...time,
    }
  })
}

function seedProducts(faker: Faker, count: number, reference: number): Product[] {
  const times = timeline(faker, count, reference - 730 * DAY, reference - 90 * DAY)
  const skus = new Set<string>()
  return times.map((time, index) => {
    const prefix = faker.string.alpha({ length: 3, casing: 'upper' })
    const sku = uniqueValue(skus, `${prefix}-${faker.string.numeric(5)}`, (n) => `${prefix}-${n}`)
    return {
      id: index + 1,
      name: faker.commerce.productName().slice(0, 100),
      sku,
      price: faker.number.int({ min: 100, max: 99_999 }) / 100,
      stock: faker.number.int({ min: 0, max: 500 }),
      status: faker.helpers.weightedArrayElement([
        { weight: 9, value: 'active' as const },
        { weight: 1, value: 'inactive' as const },
      ]),
      ...time,
    }
  })
}

function seedOrders(
  faker: Faker,
  count: number,
  users: User[],
  products: Product[],
  reference: number,
  report: (done: number) => void,
): Order[] {
  const times = timeline(faker, count, reference - 90 * DAY, reference - 1)
  return times.map((time, index) => {
    if (index % PROGRESS_STEP === 0) report(index)
    // The member account (user 2) always owns a few orders, so member flows have data.
    const userId = index < 3 ? 2 : faker.number.int({ min: 1, max: users.length })
    const picked = pickDistinct(faker, products, Math.min(3, products.length))
    const items: OrderItem[] = picked.map((product) => ({
      productId: product.id,
      productName: product.name,
      quantity: faker.number.int({ min: 1, max: 5 }),
      unitPrice: product.price,
    }))
    return {
      id: index + 1,
      userId,
      status: orderStatuses[index] ?? faker.helpers.arrayElement(orderStatuses),
      items,
      total: orderTotal(items),
      ...time,
    }
  })
}

/**
 * 1 to `max` distinct random elements. (faker's `arrayElements` shuffles a copy of the whole
 * array on every call, which made seeding 100k orders from 60k products take minutes.)
 */
function pickDistinct<T>(faker: Faker, from: readonly T[], max: number): T[] {
  const count = faker.number.int({ min: 1, max })
  const indexes = new Set<number>()
  while (indexes.size < count) indexes.add(faker.number.int({ min: 0, max: from.length - 1 }))
  return [...indexes].map((index) => from[index]!)
}
