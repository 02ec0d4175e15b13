import * as z from 'zod'
import { MAX_ID } from '../contract/fields.js'
import { describeIssue } from '../contract/issues.js'
import { orderTotal } from '../contract/money.js'
import { orderSchema } from '../shop/order-schema.js'
import { productSchema } from '../shop/product-schema.js'
import type { ProgressReporter } from '../db/progress.js'
import { PROGRESS_STEP } from '../db/progress.js'
import { documented } from '../contract/registry.js'
import type { DbDocument, DbSnapshot } from '../db/store.js'
import { uniqueKeys } from '../db/store.js'
import { userSchema } from '../shop/user-schema.js'

/** The whole data set as one JSON document (`GET/PUT /__sandbox/db`, the `--data` file). */
export const dbDocumentSchema = documented(
  z.object({
    users: z.array(userSchema),
    products: z.array(productSchema),
    orders: z.array(orderSchema),
  }),
  { id: 'DbDocument' },
)

export type DocumentCheck = { ok: true; document: DbDocument } | { ok: false; problem: string }

/** The id sequences of a snapshot: the next id of each collection. */
const nextIdSchema = z
  .int()
  .min(1)
  .max(MAX_ID + 1)
const nextIdsSchema = z.object({
  users: nextIdSchema,
  products: nextIdSchema,
  orders: nextIdSchema,
})

/**
 * {@link checkDocument}, plus the snapshot's id sequences when it has them (`nextIds`, as
 * `snapshot()` gives), so a restore never continues from a sequence that is not a valid id.
 */
export function checkSnapshot(
  input: unknown,
): { ok: true; document: DbDocument | DbSnapshot } | { ok: false; problem: string } {
  const check = checkDocument(input)
  if (!check.ok || typeof input !== 'object' || input === null || !('nextIds' in input))
    return check
  const nextIds = nextIdsSchema.safeParse(input.nextIds, { reportInput: true })
  if (!nextIds.success) {
    const issue = nextIds.error.issues[0]!
    return { ok: false, problem: describeIssue({ ...issue, path: ['nextIds', ...issue.path] }) }
  }
  return { ok: true, document: { ...check.document, nextIds: nextIds.data } }
}

/**
 * Validates a data document: every record against its schema, then what no single record
 * can show (unique ids, names, e-mails and SKUs; orders pointing at existing users and
 * products; exact totals). Reports the first problem, naming the record.
 *
 * @example
 * const check = checkDocument(JSON.parse(text))
 * if (!check.ok) console.error(check.problem) // "users[3].email: must be a valid e-mail address"
 */
export function checkDocument(input: unknown, onProgress?: ProgressReporter): DocumentCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problem: 'document: must be an object with users, products and orders' }
  }
  const source = input as Record<string, unknown>
  const collections = [
    ['users', userSchema],
    ['products', productSchema],
    ['orders', orderSchema],
  ] as const
  for (const [name] of collections) {
    if (!Array.isArray(source[name])) {
      return {
        ok: false,
        problem: `${name}: ${source[name] === undefined ? 'is required' : 'must be an array'}`,
      }
    }
  }
  const total = collections.reduce((sum, [name]) => sum + (source[name] as unknown[]).length, 0)
  let done = 0
  const parsed: Record<string, unknown[]> = {}
  // Record by record rather than one parse of the whole document: the first bad record is
  // named, progress can be reported, and a big file never needs a second full copy at once.
  for (const [name, schema] of collections) {
    const records: unknown[] = []
    for (const [index, record] of (source[name] as unknown[]).entries()) {
      const result = schema.safeParse(record, { reportInput: true })
      if (!result.success) {
        const issue = result.error.issues[0]!
        return {
          ok: false,
          problem: describeIssue({ ...issue, path: [name, index, ...issue.path] }),
        }
      }
      records.push(result.data)
      if (++done % PROGRESS_STEP === 0) onProgress?.('validating', done, total)
    }
    parsed[name] = records
  }
  const document = parsed as unknown as DbDocument
  const problem =
    uniqueness('users', document.users, {
      id: (user) => String(user.id),
      ...uniqueKeys.users,
    }) ??
    uniqueness('products', document.products, {
      id: (product) => String(product.id),
      ...uniqueKeys.products,
    }) ??
    uniqueness('orders', document.orders, { id: (order) => String(order.id) }) ??
    references(document)
  return problem ? { ok: false, problem } : { ok: true, document }
}

function uniqueness<T>(
  collection: string,
  records: readonly T[],
  keys: Readonly<Record<string, (record: T) => string>>,
): string | undefined {
  for (const [field, key] of Object.entries(keys)) {
    const seen = new Map<string, number>()
    for (const [index, record] of records.entries()) {
      const value = key(record)
      const first = seen.get(value)
      if (first !== undefined) {
        return `${collection}[${index}].${field}: '${value}' is already used by ${collection}[${first}]`
      }
      seen.set(value, index)
    }
  }
  return undefined
}

function references(document: DbDocument): string | undefined {
  const userIds = new Set(document.users.map((user) => user.id))
  const productIds = new Set(document.products.map((product) => product.id))
  for (const [index, order] of document.orders.entries()) {
    if (!userIds.has(order.userId))
      return `orders[${index}].userId: user ${order.userId} does not exist`
    for (const [line, item] of order.items.entries()) {
      if (!productIds.has(item.productId)) {
        return `orders[${index}].items[${line}].productId: product ${item.productId} does not exist`
      }
    }
    const total = orderTotal(order.items)
    if (order.total !== total)
      return `orders[${index}].total: must be ${total} (the sum of its items), got ${order.total}`
  }
  return undefined
}
