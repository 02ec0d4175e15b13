/** The shop's record and body schemas and their types, as the package exports them. */
export type { Order, OrderItem, OrderItemInput, OrderStatus } from './orders.js'
export {
  nestedOrderCreateSchema,
  orderCreateSchema,
  orderItemSchema,
  orderPatchSchema,
  orderReplaceSchema,
  orderSchema,
  orderStatusSchema,
} from './orders.js'
export type { Product } from './products.js'
export {
  productCreateSchema,
  productPatchSchema,
  productReplaceSchema,
  productSchema,
} from './products.js'
export type { User, UserRole } from './users.js'
export { userCreateSchema, userPatchSchema, userReplaceSchema, userSchema } from './users.js'
