import * as z from 'zod'
import { activitySchema, idSchema, priceSchema, readOnly, timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'

/** A product as stored and returned (CONTRACT B1). */
export const productSchema = documented(
  z.object({
    id: readOnly(idSchema),
    name: z.string().trim().min(1).max(100),
    sku: documented(z.string().regex(/^[A-Z0-9-]{3,32}$/), {
      description: 'Stock keeping unit: 3-32 of A-Z, 0-9 and "-"; unique.',
    }),
    price: priceSchema,
    stock: z.int().min(0),
    status: activitySchema,
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  }),
  { id: 'Product' },
)

const writable = productSchema.pick({
  name: true,
  sku: true,
  price: true,
  stock: true,
  status: true,
})

/** Body of `POST /products`: `status` defaults to `active`. */
export const productCreateSchema = documented(
  writable.extend({ status: activitySchema.default('active') }),
  {
    id: 'ProductCreate',
  },
)

/** Body of `PUT /products/{product_id}`: every writable field. */
export const productReplaceSchema = documented(writable, { id: 'ProductReplace' })

/** Body of `PATCH /products/{product_id}`: any writable field. */
export const productPatchSchema = documented(writable.partial(), { id: 'ProductPatch' })

export type Product = z.infer<typeof productSchema>
