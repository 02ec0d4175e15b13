import * as z from 'zod'
import { idSchema, readOnly, timestampSchema, trimmedText } from '../contract/fields.js'
import { activitySchema } from './fields.js'
import { priceSchema } from './money.js'
import { documented, schemaRegistry } from '../contract/registry.js'
import type { SeedContext } from '../resources/define.js'
import { defineResource } from '../resources/define.js'
import { DAY, timelineOf, uniqueValue } from '../resources/seed.js'
import { shopCodes } from './codes.js'

/** A product as stored and returned (CONTRACT B1). */
export const productSchema = z
  .object({
    id: readOnly(idSchema),
    name: trimmedText(1, 100).register(schemaRegistry, {
      description:
        '1-100 characters once trimmed (leading and trailing white space is removed first).',
    }),
    sku: z
      .string()
      .regex(/^[A-Z0-9-]{3,32}$/)
      .register(schemaRegistry, {
        description: 'Stock keeping unit: 3-32 of A-Z, 0-9 and "-"; unique.',
      }),
    price: priceSchema,
    stock: z.int().min(0),
    status: activitySchema,
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  })
  .register(schemaRegistry, { id: 'Product' })

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
  .register(schemaRegistry, { id: 'ProductCreate' })

/** Body of `PUT /products/{product_id}`: every writable field. */
export const productReplaceSchema = documented(writable, { id: 'ProductReplace' })

/** Body of `PATCH /products/{product_id}`: any writable field. */
export const productPatchSchema = writable
  .partial()
  .register(schemaRegistry, { id: 'ProductPatch' })

export type Product = z.infer<typeof productSchema>

/** One product at a time: the seeding gives the loop back between slices of them. */
function* seedProducts({
  faker,
  count,
  reference,
}: SeedContext): Generator<Omit<Product, 'id'>, void> {
  const timeAt = timelineOf(faker, count, reference - 730 * DAY, reference - 90 * DAY)
  const skus = new Set<string>()
  for (let index = 0; index < count; index++) {
    const prefix = faker.string.alpha({ length: 3, casing: 'upper' })
    const sku = uniqueValue(skus, `${prefix}-${faker.string.numeric(5)}`, (n) => `${prefix}-${n}`)
    yield {
      name: faker.commerce.productName().slice(0, 100),
      sku,
      price: faker.number.int({ min: 100, max: 99_999 }) / 100,
      stock: faker.number.int({ min: 0, max: 500 }),
      status: faker.helpers.weightedArrayElement([
        { weight: 9, value: 'active' as const },
        { weight: 1, value: 'inactive' as const },
      ]),
      ...timeAt(index),
    }
  }
}

/** The catalogue: anyone signed in reads it, admins change it. */
export const products = defineResource({
  name: 'products',
  singular: 'product',
  schema: productSchema,
  bodies: { create: productCreateSchema, replace: productReplaceSchema, patch: productPatchSchema },
  unique: { sku: { conflict: shopCodes.skuTaken } },
  list: {
    sortable: ['id', 'name', 'sku', 'price', 'stock', 'createdAt', 'updatedAt'],
    keyword: (product) => `${product.name}\u0000${product.sku}`,
  },
  permissions: { list: 'anyone', read: 'anyone' },
  seed: { count: 30, generate: seedProducts },
  docs: {
    operations: {
      delete: {
        summary: 'Delete a product, and the orders that contain it',
        description:
          'Orders refer to their products, so the orders containing this product are deleted with it (pending and paid ones give their other items’ stock back). To keep order history, set the product inactive instead.',
      },
    },
  },
})
