/**
 * `shop-sandbox`: a faithful sandbox of the Shop API for any environment (MSW handlers,
 * seeded data, the contract's types and codes), and the definition API to add resources of
 * your own.
 * @module
 */

import { ADMIN_TOKEN, MEMBER_TOKEN } from './shop/accounts.js'

export { ADMIN_TOKEN, MEMBER_TOKEN }
export { ApiError } from './contract/api-error.js'
export type { BusinessCode, CodeName, CodeSpec } from './contract/codes.js'
export { codes, ErrorCode } from './contract/codes.js'
export type { Envelope, ErrorEnvelope, ListPayload, SuccessEnvelope } from './contract/envelope.js'
export type { ApiRequest, ApiResponse } from './contract/exchange.js'
export {
  activitySchema,
  idSchema,
  priceSchema,
  readOnly,
  timestampSchema,
} from './contract/fields.js'
export { documented } from './contract/registry.js'
export type { Row } from './db/table.js'
export { Store } from './db/store.js'
export { Table } from './db/table.js'
export type {
  Action,
  ConflictCode,
  DataService,
  Link,
  Permission,
  ResourceDefinition,
  ResourceRules,
  SeedContext,
  SeedSpec,
  UniqueKey,
} from './resources/define.js'
export { defineResource } from './resources/define.js'
export { REFERENCE_DATE, timeline, uniqueValue } from './resources/seed.js'
export { fixedAccounts, fixedTokens, SEED_PASSWORD } from './shop/accounts.js'
export type { DbDocument, DbSnapshot, SeedOptions, ShopStore } from './shop/index.js'
export {
  checkDocument,
  dbDocumentSchema,
  seedData,
  seedDefaults,
  shopResources,
} from './shop/index.js'
export * from './shop/schemas.js'
export type { Sandbox } from './sandbox/create-sandbox.js'
export { createSandbox } from './sandbox/create-sandbox.js'
export type { ResolvedOptions, SandboxOptions } from './sandbox/options.js'
export type { SandboxInstance } from './state/instance.js'
export type { JournalEntry, JournalFilter } from './state/journal.js'
export type { Override, OverrideInput } from './state/overrides.js'
export type { Delay, RuntimeConfig, RuntimeConfigInput } from './state/runtime-config.js'
export type { UnhandledStrategy } from './sandbox/unhandled.js'
export type { OpenApiOptions } from './openapi/document.js'
export { openApiDocument } from './openapi/document.js'
