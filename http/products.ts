import { readOnlyFields } from '../contract/registry.js'
import type { Product } from '../shop/product-schema.js'
import {
  productCreateSchema,
  productPatchSchema,
  productReplaceSchema,
  productSchema,
} from '../shop/product-schema.js'
import { changesNothing } from '../db/same-record.js'
import { ApiError } from '../contract/api-error.js'
import { validateBody } from './body.js'
import { success } from '../contract/envelope.js'
import type { ListSpec } from '../resources/list.js'
import { parseListQuery, parseRecordQuery, runListQuery, selectFields } from '../resources/list.js'
import type { Operation, OperationContext } from './operation.js'
import { anyone } from './operation.js'
import { removeOrder } from '../shop/order-rules.js'
import { created, deleted, pathRecord } from './responses.js'
import type { Route } from './router.js'

const fields = productSchema.keyof().options
const readOnly = readOnlyFields(productSchema)

export const productListSpec: ListSpec<Product> = {
  fields,
  sortable: ['id', 'name', 'sku', 'price', 'stock', 'createdAt', 'updatedAt'],
  statuses: productSchema.shape.status.options,
  keywordText: (product) => `${product.name}\u0000${product.sku}`,
}

function pathProduct(context: OperationContext): Product {
  return pathRecord(context, context.instance.store.products, 'product')
}

function assertUniqueSku(context: OperationContext, sku: string, selfId?: number): void {
  const holder = context.instance.store.products.findUnique('sku', sku)
  if (holder && holder.id !== selfId) throw ApiError.of('skuTaken', `SKU already exists: '${sku}'`)
}

async function update(context: OperationContext, replace: boolean) {
  const body = await context.readJson()
  const product = pathProduct(context)
  const schema = replace ? productReplaceSchema : productPatchSchema
  const changes = validateBody(schema, body, { strict: context.strict, readOnly })
  if (changesNothing(product, changes)) return success(product)
  const next: Product = { ...product, ...changes, updatedAt: context.now() }
  assertUniqueSku(context, next.sku, product.id)
  return success(context.instance.store.products.replace(next))
}

const listProducts: Operation = {
  permit: anyone,
  docs: {
    operationId: 'listProducts',
    summary: 'List products',
    tags: ['products'],
    success: { status: 200, data: productSchema, list: true },
    query: 'list',
    listSpec: productListSpec,
    errors: [],
  },
  run(context) {
    const query = parseListQuery(context.query, productListSpec, context.strict)
    return success(runListQuery(context.instance.store.products, query, productListSpec))
  },
}

const createProduct: Operation = {
  docs: {
    operationId: 'createProduct',
    summary: 'Create a product',
    tags: ['products'],
    success: { status: 201, data: productSchema },
    body: productCreateSchema,
    errors: ['validationFailed', 'skuTaken'],
  },
  async run(context) {
    const body = await context.readJson()
    const input = validateBody(productCreateSchema, body, { strict: context.strict, readOnly })
    assertUniqueSku(context, input.sku)
    const now = context.now()
    const product = context.instance.store.products.insert({
      ...input,
      createdAt: now,
      updatedAt: now,
    })
    return created(context, `/products/${product.id}`, product)
  },
}

const getProduct: Operation = {
  permit: anyone,
  docs: {
    operationId: 'getProduct',
    summary: 'Get a product',
    tags: ['products'],
    success: { status: 200, data: productSchema },
    query: 'fields',
    listSpec: productListSpec,
    errors: ['notFound'],
  },
  run(context) {
    const selected = parseRecordQuery(context.query, fields, context.strict)
    return success(selectFields(pathProduct(context), selected))
  },
}

const replaceProduct: Operation = {
  docs: {
    operationId: 'replaceProduct',
    summary: 'Replace a product',
    description: 'Every writable field is required.',
    tags: ['products'],
    success: { status: 200, data: productSchema },
    body: productReplaceSchema,
    errors: ['notFound', 'validationFailed', 'skuTaken'],
  },
  run: (context) => update(context, true),
}

const patchProduct: Operation = {
  docs: {
    operationId: 'updateProduct',
    summary: 'Update a product partially',
    tags: ['products'],
    success: { status: 200, data: productSchema },
    body: productPatchSchema,
    errors: ['notFound', 'validationFailed', 'skuTaken'],
  },
  run: (context) => update(context, false),
}

const deleteProduct: Operation = {
  docs: {
    operationId: 'deleteProduct',
    summary: 'Delete a product, and the orders that contain it',
    description:
      'Orders refer to their products, so the orders containing this product are deleted with it (pending and paid ones give their other items’ stock back). To keep order history, set the product inactive instead.',
    tags: ['products'],
    success: { status: 204, data: null, representation: productSchema },
    errors: ['notFound'],
  },
  run(context) {
    const product = pathProduct(context)
    const { orders, products } = context.instance.store
    // A rare admin action: scanning the orders beats keeping a product → orders index in memory.
    const containing = orders
      .all()
      .filter((order) => order.items.some((item) => item.productId === product.id))
    for (const order of containing) removeOrder(context, order)
    products.delete(product.id)
    return deleted(context, product)
  },
}

export const productRoutes: Route<Operation>[] = [
  { path: '/products', operations: { GET: listProducts, POST: createProduct } },
  {
    path: '/products/{product_id}',
    operations: {
      GET: getProduct,
      PUT: replaceProduct,
      PATCH: patchProduct,
      DELETE: deleteProduct,
    },
  },
]
