import * as z from 'zod'
import { ApiError } from '../contract/api-error.js'
import { idSchema, readOnly, timestampSchema } from '../contract/fields.js'
import { priceSchema } from './money.js'
import { orderTotal } from './money.js'
import { documented, schemaRegistry } from '../contract/registry.js'
import { PROGRESS_STEP } from '../db/progress.js'
import type { DataService, SeedContext } from '../resources/define.js'
import { defineResource } from '../resources/define.js'
import { DAY, pickDistinct, timelineOf } from '../resources/seed.js'
import { shopCodes } from './codes.js'
import type { Product } from './products.js'
import { products } from './products.js'
import type { User } from './users.js'
import { users } from './users.js'

export const orderStatusSchema = z.enum(['pending', 'paid', 'shipped', 'delivered', 'cancelled'])

/** One line of an order; `productName` and `unitPrice` are copied from the product. */
export const orderItemSchema = z
  .object({
    productId: idSchema,
    productName: readOnly(z.string()),
    quantity: z.int().min(1).max(999),
    unitPrice: readOnly(priceSchema),
  })
  .register(schemaRegistry, { id: 'OrderItem' })

/** An order's lines: 1 to 50 (CONTRACT B1), as stored or as a client sends them. */
function itemList<T extends z.ZodType>(item: T) {
  return z.array(item).min(1).max(50)
}

/** An order as stored and returned (CONTRACT B1). */
export const orderSchema = z
  .object({
    id: readOnly(idSchema),
    userId: documented(idSchema, { description: 'The owner; read-only after creation.' }),
    status: orderStatusSchema,
    items: itemList(orderItemSchema),
    total: readOnly(z.number().min(0), 'Sum of quantity x unitPrice, computed in whole cents.'),
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  })
  .register(schemaRegistry, { id: 'Order' })

/** What a client sends for one line: the product and how many. */
export const orderItemInputSchema = orderItemSchema
  .pick({ productId: true, quantity: true })
  .register(schemaRegistry, { id: 'OrderItemInput' })

const itemsInput = itemList(orderItemInputSchema)

/** Body of `POST /users/{user_id}/orders` (the owner comes from the path). */
export const nestedOrderCreateSchema = z
  .object({ items: itemsInput })
  .register(schemaRegistry, { id: 'NestedOrderCreate' })

/** Body of `POST /orders`: `userId` is required. */
export const orderCreateSchema = nestedOrderCreateSchema
  .extend({ userId: idSchema })
  .register(schemaRegistry, { id: 'OrderCreate' })

/** Body of `PUT /orders/{order_id}`: every writable field. */
export const orderReplaceSchema = z
  .object({ status: orderStatusSchema, items: itemsInput })
  .register(schemaRegistry, { id: 'OrderReplace' })

/** Body of `PATCH /orders/{order_id}`: any writable field. */
export const orderPatchSchema = orderReplaceSchema
  .partial()
  .register(schemaRegistry, { id: 'OrderPatch' })

export type Order = z.infer<typeof orderSchema>
export type OrderItem = z.infer<typeof orderItemSchema>
export type OrderItemInput = z.infer<typeof orderItemInputSchema>
export type OrderStatus = z.infer<typeof orderStatusSchema>

/** The status changes CONTRACT B1 allows. */
export const transitions: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
}

/** Orders in these states still hold their stock; deleting one gives it back (it never shipped). */
const returnsStockOnDelete: readonly OrderStatus[] = ['pending', 'paid']

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0

/** Why a product may not be ordered (it does not exist, or is inactive), or null. */
function unorderable(data: DataService, productId: number): string | null {
  const product = data.table<Product>('products').get(productId)
  if (!product) return `product ${productId} does not exist`
  return product.status === 'active' ? null : `product ${productId} is inactive`
}

/**
 * The records an order body points at that do not exist or may not be ordered, read from the
 * raw body (whatever else is wrong with it): `userId` unless the path gives the owner, and the
 * products of `items` unless they are the order's current items (which need no new check).
 */
function orderReferences(
  body: unknown,
  data: DataService,
  current?: Order,
  owner?: number,
): string[] {
  const problems: string[] = []
  if (!isObject(body)) return problems
  if (
    !current &&
    owner === undefined &&
    isId(body.userId) &&
    !data.table<User>('users').get(body.userId)
  )
    problems.push(`userId: user ${body.userId} does not exist`)
  const items = body.items
  if (!Array.isArray(items)) return problems
  const unchanged =
    current !== undefined &&
    items.length === current.items.length &&
    items.every(
      (item, index) =>
        isObject(item) &&
        item.productId === current.items[index]!.productId &&
        item.quantity === current.items[index]!.quantity,
    )
  if (unchanged) return problems
  items.forEach((item, index) => {
    if (!isObject(item) || !isId(item.productId)) return
    const problem = unorderable(data, item.productId)
    if (problem) problems.push(`items[${index}].productId: ${problem}`)
  })
  return problems
}

/**
 * Resolves client items against the products: each must exist and be active, else one
 * 422 / 42200 naming every bad item. Copies `productName` and `unitPrice`.
 */
function resolveItems(data: DataService, items: readonly OrderItemInput[]): OrderItem[] {
  const products = data.table<Product>('products')
  const problems: string[] = []
  const resolved = items.map((item, index) => {
    const problem = unorderable(data, item.productId)
    if (problem) problems.push(`items[${index}].productId: ${problem}`)
    const product = products.get(item.productId)
    return {
      productId: item.productId,
      productName: product?.name ?? '',
      quantity: item.quantity,
      unitPrice: product?.price ?? 0,
    }
  })
  if (problems.length > 0) throw ApiError.invalid(problems)
  return resolved
}

/**
 * Applies stock movements all-or-nothing: `delta` maps product id → change (negative takes).
 * 409 / 40901 when any product would go below zero; nothing changes then. Stock given back stops
 * at the largest integer a product's stock may hold (2^53 − 1): past it, the record would be one
 * its own schema, a data file and `PUT /__sandbox/db` refuse.
 */
function moveStock(data: DataService, delta: ReadonlyMap<number, number>): void {
  assertStock(data, delta)
  const products = data.table<Product>('products')
  const updates: Product[] = []
  for (const [productId, change] of delta) {
    if (change === 0) continue
    const product = products.get(productId)
    if (!product) continue
    const stock = Math.min(product.stock + change, Number.MAX_SAFE_INTEGER)
    if (stock !== product.stock) updates.push({ ...product, stock, updatedAt: data.now() })
  }
  for (const product of updates) products.replace(product)
}

/** 409 / 40901 when a product has less stock than `delta` takes from it. */
function assertStock(data: DataService, delta: ReadonlyMap<number, number>): void {
  const products = data.table<Product>('products')
  for (const [productId, change] of delta) {
    const product = change < 0 ? products.get(productId) : undefined
    if (product && product.stock + change < 0)
      throw ApiError.from(
        shopCodes.insufficientStock,
        `insufficient stock for product ${productId} (${product.name}): ${-change} requested, ${product.stock} in stock`,
      )
  }
}

/** Adds `sign × quantity` of every item to `delta`. */
function tally(
  delta: Map<number, number>,
  items: readonly Pick<OrderItem, 'productId' | 'quantity'>[],
  sign: 1 | -1,
) {
  for (const item of items)
    delta.set(item.productId, (delta.get(item.productId) ?? 0) + sign * item.quantity)
}

function sameItems(current: readonly OrderItem[], next: readonly OrderItemInput[]): boolean {
  return (
    current.length === next.length &&
    current.every(
      (item, index) =>
        item.productId === next[index]!.productId && item.quantity === next[index]!.quantity,
    )
  )
}

/** A new `pending` order for a user, its quantities taken from stock. */
function placeOrder(input: Record<string, unknown>, data: DataService): Omit<Order, 'id'> {
  const items = resolveItems(data, input.items as OrderItemInput[])
  const delta = new Map<number, number>()
  tally(delta, items, -1)
  moveStock(data, delta)
  const now = data.now()
  return {
    userId: input.userId as number,
    status: 'pending',
    items,
    total: orderTotal(items),
    createdAt: now,
    updatedAt: now,
  }
}

/**
 * Changes an order's status and/or items (PUT, PATCH): the status must follow the allowed
 * transitions and items change only while pending (else 409 / 40902); stock follows, and a
 * cancel gives it back.
 */
function changeOrder(order: Order, changes: Record<string, unknown>, data: DataService): Order {
  const wanted = changes as { status?: OrderStatus; items?: OrderItemInput[] }
  const itemsChange = wanted.items !== undefined && !sameItems(order.items, wanted.items)
  const items = itemsChange ? resolveItems(data, wanted.items!) : order.items
  const status = wanted.status ?? order.status
  if (status !== order.status && !transitions[order.status].includes(status)) {
    const allowed = transitions[order.status]
    throw ApiError.from(
      shopCodes.invalidStatusChange,
      `order status cannot change from ${order.status} to ${status}; ${allowed.length ? `allowed: ${allowed.join(', ')}` : `${order.status} is final`}`,
    )
  }
  if (itemsChange && order.status !== 'pending') {
    throw ApiError.from(
      shopCodes.invalidStatusChange,
      `order items can change only while pending; this order is ${order.status}`,
    )
  }
  if (!itemsChange && status === order.status) return order
  const delta = new Map<number, number>()
  tally(delta, order.items, 1)
  tally(delta, items, -1)
  if (status === 'cancelled') {
    // Items changed on the way to cancelled change while the order is pending, first: the stock
    // they take is checked (409 / 40901, as for paid), then all of it is given back.
    if (itemsChange) assertStock(data, delta)
    tally(delta, items, 1)
  }
  moveStock(data, delta)
  return { ...order, status, items, total: orderTotal(items) }
}

/** Pending and paid orders give their stock back when deleted. */
function returnStock(order: Order, data: DataService): void {
  if (!returnsStockOnDelete.includes(order.status)) return
  const delta = new Map<number, number>()
  tally(delta, order.items, 1)
  moveStock(data, delta)
}

const orderStatuses = orderStatusSchema.options

function* seedOrders({
  faker,
  count,
  reference,
  data,
  progress,
}: SeedContext): Generator<Omit<Order, 'id'>, void> {
  const users = data.users!
  const products = data.products as readonly Product[]
  const timeAt = timelineOf(faker, count, reference - 90 * DAY, reference - 1)
  for (let index = 0; index < count; index++) {
    if (index % PROGRESS_STEP === 0) progress(index)
    // The member account (user 2) always owns a few orders, so member flows have data.
    const userId = index < 3 ? 2 : faker.number.int({ min: 1, max: users.length })
    const picked = pickDistinct(faker, products, Math.min(3, products.length))
    const items: OrderItem[] = picked.map((product) => ({
      productId: product.id,
      productName: product.name,
      quantity: faker.number.int({ min: 1, max: 5 }),
      unitPrice: product.price,
    }))
    yield {
      userId,
      status: orderStatuses[index] ?? faker.helpers.arrayElement(orderStatuses),
      items,
      total: orderTotal(items),
      ...timeAt(index),
    }
  }
}

/** Orders belong to users and hold products: stock, status transitions and totals are theirs. */
export const orders = defineResource({
  name: 'orders',
  singular: 'order',
  schema: orderSchema,
  bodies: {
    create: orderCreateSchema,
    replace: orderReplaceSchema,
    patch: orderPatchSchema,
    nestedCreate: nestedOrderCreateSchema,
  },
  list: {
    sortable: ['id', 'status', 'total', 'createdAt', 'updatedAt'],
    keyword: (order) => order.items.map((item) => item.productName).join('\u0000'),
  },
  links: [
    { resource: users, field: 'userId', nested: 'own' },
    {
      resource: products,
      ids: (order) => order.items.map((item, line) => [`items[${line}].productId`, item.productId]),
    },
  ],
  rules: {
    references: orderReferences,
    create: placeOrder,
    update: changeOrder,
    remove: returnStock,
    check(order) {
      const total = orderTotal(order.items)
      return order.total === total
        ? undefined
        : `total: must be ${total} (the sum of its items), got ${order.total}`
    },
  },
  errors: {
    create: [shopCodes.insufficientStock],
    update: [shopCodes.insufficientStock, shopCodes.invalidStatusChange],
  },
  seed: { count: 100, needs: products, generate: seedOrders },
  docs: {
    operations: {
      create: {
        summary: 'Place an order for a user',
        description:
          'Takes the quantities from product stock; every product must exist and be active.',
      },
      replace: {
        summary: 'Replace an order (status and items)',
        description:
          'Status follows pending→paid→shipped→delivered, pending|paid→cancelled; items change only while pending; cancelling returns the stock.',
      },
      update: {
        description:
          'Status follows pending→paid→shipped→delivered, pending|paid→cancelled; items change only while pending; cancelling returns the stock.',
      },
      delete: { description: 'A pending or paid order gives its stock back.' },
    },
  },
})
