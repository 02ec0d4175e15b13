import { z } from 'zod'
import { activitySchema, idSchema, priceSchema, readOnly, timestampSchema } from './fields.js'

/** A product as stored and returned (CONTRACT B1). */
export const productSchema = z
  .object({
    id: idSchema.meta(readOnly),
    name: z.string().trim().min(1).max(100),
    sku: z
      .string()
      .regex(/^[A-Z0-9-]{3,32}$/)
      .meta({ description: 'Stock keeping unit: 3-32 of A-Z, 0-9 and "-"; unique.' }),
    price: priceSchema,
    stock: z.int().min(0),
    status: activitySchema,
    createdAt: timestampSchema.meta(readOnly),
    updatedAt: timestampSchema.meta(readOnly),
  })
  .meta({ id: 'Product' })

const writable = productSchema.pick({
  name: true,
  sku: true,
  price: true,
  stock: true,
  status: true,
})

/** Body of `POST /products`: `status` defaults to `active`. */
export const productCreateSchema = writable
  .extend({ status: activitySchema.default('active') })
  .meta({ id: 'ProductCreate' })

/** Body of `PUT /products/{product_id}`: every writable field. */
export const productReplaceSchema = writable.meta({ id: 'ProductReplace' })

/** Body of `PATCH /products/{product_id}`: any writable field. */
export const productPatchSchema = writable.partial().meta({ id: 'ProductPatch' })

export type Product = z.infer<typeof productSchema>
