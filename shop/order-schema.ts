import * as z from 'zod'
import { idSchema, priceSchema, readOnly, timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'

export const orderStatusSchema = z.enum(['pending', 'paid', 'shipped', 'delivered', 'cancelled'])

/** One line of an order; `productName` and `unitPrice` are copied from the product. */
export const orderItemSchema = documented(
  z.object({
    productId: idSchema,
    productName: readOnly(z.string()),
    quantity: z.int().min(1).max(999),
    unitPrice: readOnly(priceSchema),
  }),
  { id: 'OrderItem' },
)

/** An order's lines: 1 to 50 (CONTRACT B1), as stored or as a client sends them. */
function itemList<T extends z.ZodType>(item: T) {
  return z.array(item).min(1).max(50)
}

/** An order as stored and returned (CONTRACT B1). */
export const orderSchema = documented(
  z.object({
    id: readOnly(idSchema),
    userId: documented(idSchema, { description: 'The owner; read-only after creation.' }),
    status: orderStatusSchema,
    items: itemList(orderItemSchema),
    total: readOnly(z.number().min(0), 'Sum of quantity x unitPrice, computed in whole cents.'),
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  }),
  { id: 'Order' },
)

/** What a client sends for one line: the product and how many. */
export const orderItemInputSchema = documented(
  orderItemSchema.pick({ productId: true, quantity: true }),
  {
    id: 'OrderItemInput',
  },
)

const itemsInput = itemList(orderItemInputSchema)

/** Body of `POST /users/{user_id}/orders` (the owner comes from the path). */
export const nestedOrderCreateSchema = documented(z.object({ items: itemsInput }), {
  id: 'NestedOrderCreate',
})

/** Body of `POST /orders`: `userId` is required. */
export const orderCreateSchema = documented(nestedOrderCreateSchema.extend({ userId: idSchema }), {
  id: 'OrderCreate',
})

/** Body of `PUT /orders/{order_id}`: every writable field. */
export const orderReplaceSchema = documented(
  z.object({ status: orderStatusSchema, items: itemsInput }),
  {
    id: 'OrderReplace',
  },
)

/** Body of `PATCH /orders/{order_id}`: any writable field. */
export const orderPatchSchema = documented(orderReplaceSchema.partial(), { id: 'OrderPatch' })

export type Order = z.infer<typeof orderSchema>
export type OrderItem = z.infer<typeof orderItemSchema>
export type OrderItemInput = z.infer<typeof orderItemInputSchema>
export type OrderStatus = z.infer<typeof orderStatusSchema>
