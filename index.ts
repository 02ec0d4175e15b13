/**
 * `shop-sandbox`: a faithful sandbox of the Shop API for any environment (MSW handlers,
 * seeded data, the contract's types and codes).
 * @module
 */

export { checkDocument, dbDocumentSchema } from './db/document.js'
export type { Order, OrderItem, OrderItemInput, OrderStatus } from './db/order-schema.js'
export {
  nestedOrderCreateSchema,
  orderCreateSchema,
  orderItemSchema,
  orderPatchSchema,
  orderReplaceSchema,
  orderSchema,
  orderStatusSchema,
} from './db/order-schema.js'
export type { Product } from './db/product-schema.js'
export {
  productCreateSchema,
  productPatchSchema,
  productReplaceSchema,
  productSchema,
} from './db/product-schema.js'
export type { SeedOptions } from './db/seed.js'
export { fixedAccounts, REFERENCE_DATE, SEED_PASSWORD, seedData, seedDefaults } from './db/seed.js'
export type { DbDocument, DbSnapshot } from './db/store.js'
export { Store } from './db/store.js'
export type { Row } from './db/table.js'
export { Table } from './db/table.js'
export type { User, UserRole } from './db/user-schema.js'
export {
  userCreateSchema,
  userPatchSchema,
  userReplaceSchema,
  userSchema,
} from './db/user-schema.js'
export { ApiError } from './handlers/api-error.js'
import { fixedTokens } from './handlers/auth.js'

export { fixedTokens }
export type { BusinessCode, CodeName } from './handlers/codes.js'
export { codes, ErrorCode } from './handlers/codes.js'
export type { Envelope, ErrorEnvelope, ListPayload, SuccessEnvelope } from './handlers/envelope.js'
export type { ApiRequest, ApiResponse } from './handlers/exchange.js'
export type { Sandbox } from './sandbox/create-sandbox.js'
export { createSandbox } from './sandbox/create-sandbox.js'
export type { SandboxInstance } from './sandbox/instance.js'
export type { JournalEntry, JournalFilter } from './sandbox/journal.js'
export type { Override, OverrideInput } from './sandbox/overrides.js'
export type { ResolvedOptions, SandboxOptions } from './sandbox/options.js'
export type { Delay, RuntimeConfig, RuntimeConfigInput } from './sandbox/runtime-config.js'
export type { UnhandledStrategy } from './sandbox/unhandled.js'

/** The fixed admin token: user 1, admin@example.com. */
export const ADMIN_TOKEN = fixedTokens[0].token
/** The fixed member token: user 2, member@example.com. */
export const MEMBER_TOKEN = fixedTokens[1].token
export type { OpenApiOptions } from './openapi/document.js'
export { openApiDocument } from './openapi/document.js'
