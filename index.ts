/**
 * `shop-sandbox`: a faithful sandbox of the Shop API for any environment (MSW handlers,
 * seeded data, the contract's types and codes).
 * @module
 */

export { checkDocument, dbDocumentSchema } from './resources/document.js'
export type { Order, OrderItem, OrderItemInput, OrderStatus } from './shop/order-schema.js'
export {
  nestedOrderCreateSchema,
  orderCreateSchema,
  orderItemSchema,
  orderPatchSchema,
  orderReplaceSchema,
  orderSchema,
  orderStatusSchema,
} from './shop/order-schema.js'
export type { Product } from './shop/product-schema.js'
export {
  productCreateSchema,
  productPatchSchema,
  productReplaceSchema,
  productSchema,
} from './shop/product-schema.js'
export type { SeedOptions } from './resources/seed.js'
export { fixedAccounts, REFERENCE_DATE, SEED_PASSWORD, seedData, seedDefaults } from './resources/seed.js'
export type { DbDocument, DbSnapshot } from './db/store.js'
export { Store } from './db/store.js'
export type { Row } from './db/table.js'
export { Table } from './db/table.js'
export type { User, UserRole } from './shop/user-schema.js'
export {
  userCreateSchema,
  userPatchSchema,
  userReplaceSchema,
  userSchema,
} from './shop/user-schema.js'
export { ApiError } from './contract/api-error.js'
import { fixedTokens } from './http/auth.js'

export { fixedTokens }
export type { BusinessCode, CodeName } from './contract/codes.js'
export { codes, ErrorCode } from './contract/codes.js'
export type { Envelope, ErrorEnvelope, ListPayload, SuccessEnvelope } from './contract/envelope.js'
export type { ApiRequest, ApiResponse } from './contract/exchange.js'
export type { Sandbox } from './sandbox/create-sandbox.js'
export { createSandbox } from './sandbox/create-sandbox.js'
export type { SandboxInstance } from './state/instance.js'
export type { JournalEntry, JournalFilter } from './state/journal.js'
export type { Override, OverrideInput } from './state/overrides.js'
export type { ResolvedOptions, SandboxOptions } from './sandbox/options.js'
export type { Delay, RuntimeConfig, RuntimeConfigInput } from './state/runtime-config.js'
export type { UnhandledStrategy } from './sandbox/unhandled.js'

/** The fixed admin token: user 1, admin@example.com. */
export const ADMIN_TOKEN = fixedTokens[0].token
/** The fixed member token: user 2, member@example.com. */
export const MEMBER_TOKEN = fixedTokens[1].token
export type { OpenApiOptions } from './openapi/document.js'
export { openApiDocument } from './openapi/document.js'
