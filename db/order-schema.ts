import { z } from 'zod'
import { idSchema, priceSchema, readOnly, timestampSchema } from './fields.js'

export const orderStatusSchema = z.enum(['pending', 'paid', 'shipped', 'delivered', 'cancelled'])

/** One line of an order; `productName` and `unitPrice` are copied from the product. */
export const orderItemSchema = z
  .object({
    productId: idSchema,
    productName: z.string().meta(readOnly),
    quantity: z.int().min(1).max(999),
    unitPrice: priceSchema.meta(readOnly),
  })
  .meta({ id: 'OrderItem' })

/** An order as stored and returned (CONTRACT B1). */
export const orderSchema = z
  .object({
    id: idSchema.meta(readOnly),
    userId: idSchema.meta({ description: 'The owner; read-only after creation.' }),
    status: orderStatusSchema,
    items: z.array(orderItemSchema).min(1).max(50),
    total: z
      .number()
      .min(0)
      .meta({ ...readOnly, description: 'Sum of quantity x unitPrice, in whole cents.' }),
    createdAt: timestampSchema.meta(readOnly),
    updatedAt: timestampSchema.meta(readOnly),
  })
  .meta({ id: 'Order' })

/** What a client sends for one line: the product and how many. */
export const orderItemInputSchema = orderItemSchema
  .pick({ productId: true, quantity: true })
  .meta({ id: 'OrderItemInput' })

const itemsInput = z.array(orderItemInputSchema).min(1).max(50)

/** Body of `POST /users/{user_id}/orders` (the owner comes from the path). */
export const nestedOrderCreateSchema = z
  .object({ items: itemsInput })
  .meta({ id: 'NestedOrderCreate' })

/** Body of `POST /orders`: `userId` is required. */
export const orderCreateSchema = nestedOrderCreateSchema
  .extend({ userId: idSchema })
  .meta({ id: 'OrderCreate' })

/** Body of `PUT /orders/{order_id}`: every writable field. */
export const orderReplaceSchema = z
  .object({ status: orderStatusSchema, items: itemsInput })
  .meta({ id: 'OrderReplace' })

/** Body of `PATCH /orders/{order_id}`: any writable field. */
export const orderPatchSchema = orderReplaceSchema.partial().meta({ id: 'OrderPatch' })

export type Order = z.infer<typeof orderSchema>
export type OrderItem = z.infer<typeof orderItemSchema>
export type OrderItemInput = z.infer<typeof orderItemInputSchema>
export type OrderStatus = z.infer<typeof orderStatusSchema>
