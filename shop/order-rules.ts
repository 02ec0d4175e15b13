import { orderTotal } from '../contract/money.js'
import type { Order, OrderItem, OrderItemInput, OrderStatus } from './order-schema.js'
import type { Product } from './product-schema.js'
import { ApiError } from '../contract/api-error.js'
import type { OperationContext } from '../http/operation.js'

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

/**
 * The records an order body points at that do not exist or may not be ordered, read from the
 * raw body (whatever else is wrong with it): `userId` when `user` is true, and the products
 * of `items` unless they are the order's current items (which need no new check).
 */
export function orderReferences(
  context: OperationContext,
  options: { user: boolean; current?: readonly OrderItem[] },
): (body: unknown) => string[] {
  return (body) => {
    const problems: string[] = []
    if (!isObject(body)) return problems
    const { users, products } = context.instance.store
    if (options.user && isId(body.userId) && !users.get(body.userId))
      problems.push(`userId: user ${body.userId} does not exist`)
    const items = body.items
    if (!Array.isArray(items)) return problems
    const current = options.current
    const unchanged =
      current !== undefined &&
      items.length === current.length &&
      items.every(
        (item, index) =>
          isObject(item) &&
          item.productId === current[index]!.productId &&
          item.quantity === current[index]!.quantity,
      )
    if (unchanged) return problems
    items.forEach((item, index) => {
      if (!isObject(item) || !isId(item.productId)) return
      const product = products.get(item.productId)
      if (!product)
        problems.push(`items[${index}].productId: product ${item.productId} does not exist`)
      else if (product.status !== 'active')
        problems.push(`items[${index}].productId: product ${item.productId} is inactive`)
    })
    return problems
  }
}

/**
 * Resolves client items against the products: each must exist and be active, else one
 * 422 / 42200 naming every bad item. Copies `productName` and `unitPrice`.
 */
export function resolveItems(
  context: OperationContext,
  items: readonly OrderItemInput[],
): OrderItem[] {
  const { products } = context.instance.store
  const problems: string[] = []
  const resolved = items.map((item, index) => {
    const product = products.get(item.productId)
    if (!product)
      problems.push(`items[${index}].productId: product ${item.productId} does not exist`)
    else if (product.status !== 'active')
      problems.push(`items[${index}].productId: product ${item.productId} is inactive`)
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
 * 409 / 40901 when any product would go below zero; nothing changes then.
 */
export function moveStock(context: OperationContext, delta: ReadonlyMap<number, number>): void {
  const { products } = context.instance.store
  const updates: Product[] = []
  for (const [productId, change] of delta) {
    if (change === 0) continue
    const product = products.get(productId)
    if (!product) continue
    if (product.stock + change < 0) {
      throw ApiError.of(
        'insufficientStock',
        `insufficient stock for product ${productId} (${product.name}): ${-change} requested, ${product.stock} in stock`,
      )
    }
    updates.push({ ...product, stock: product.stock + change, updatedAt: context.now() })
  }
  for (const product of updates) products.replace(product)
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

/** Places a new `pending` order for a user, taking its quantities from stock. */
export function placeOrder(
  context: OperationContext,
  userId: number,
  input: readonly OrderItemInput[],
): Order {
  const items = resolveItems(context, input)
  const delta = new Map<number, number>()
  tally(delta, items, -1)
  moveStock(context, delta)
  const now = context.now()
  return context.instance.store.orders.insert({
    userId,
    status: 'pending',
    items,
    total: orderTotal(items),
    createdAt: now,
    updatedAt: now,
  })
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

/**
 * Changes an order's status and/or items (PUT, PATCH): the status must follow the allowed
 * transitions and items change only while pending (else 409 / 40902); stock follows, and a
 * cancel gives it back.
 */
export function changeOrder(
  context: OperationContext,
  order: Order,
  changes: { status?: OrderStatus | undefined; items?: OrderItemInput[] | undefined },
): Order {
  const itemsChange = changes.items !== undefined && !sameItems(order.items, changes.items)
  const items = itemsChange ? resolveItems(context, changes.items!) : order.items
  const status = changes.status ?? order.status
  if (status !== order.status && !transitions[order.status].includes(status)) {
    const allowed = transitions[order.status]
    throw ApiError.of(
      'invalidStatusChange',
      `order status cannot change from ${order.status} to ${status}; ${allowed.length ? `allowed: ${allowed.join(', ')}` : `${order.status} is final`}`,
    )
  }
  if (itemsChange && order.status !== 'pending') {
    throw ApiError.of(
      'invalidStatusChange',
      `order items can change only while pending; this order is ${order.status}`,
    )
  }
  if (!itemsChange && status === order.status) return order
  const delta = new Map<number, number>()
  tally(delta, order.items, 1)
  if (status !== 'cancelled') tally(delta, items, -1)
  moveStock(context, delta)
  return context.instance.store.orders.replace({
    ...order,
    status,
    items,
    total: orderTotal(items),
    updatedAt: context.now(),
  })
}

/** Deletes an order; pending and paid orders give their stock back. */
export function removeOrder(context: OperationContext, order: Order): void {
  if (returnsStockOnDelete.includes(order.status)) {
    const delta = new Map<number, number>()
    tally(delta, order.items, 1)
    moveStock(context, delta)
  }
  context.instance.store.orders.delete(order.id)
}
