/**
 * `shop-sandbox`: a faithful sandbox of the Shop API for any environment (MSW handlers,
 * seeded data, the contract's types and codes), and the definition API to add resources of
 * your own.
 * @module
 */

import { ADMIN_TOKEN, MEMBER_TOKEN } from './shop/accounts.js'
import type { ShopStore } from './shop/index.js'
import type { ScenarioDefinition } from './state/scenarios.js'
import { defineScenario as defineScenarioOf } from './state/scenarios.js'

export { ADMIN_TOKEN, MEMBER_TOKEN }
export { ApiError } from './contract/api-error.js'
export type { CodeDefinition, CodeSpec, GenericCodeName } from './contract/codes.js'
export { codes as genericCodes } from './contract/codes.js'
export type { ListPayload, SuccessEnvelope } from './contract/envelope.js'
export type { ApiRequest, ApiResponse } from './contract/exchange.js'
export { idSchema, readOnly, timestampSchema } from './contract/fields.js'
export { activitySchema } from './shop/fields.js'
export { priceSchema } from './shop/money.js'
export { documented } from './contract/registry.js'
export type {
  ScenarioData,
  ScenarioDefinition,
  ScenarioSummary,
  SeedData,
} from './state/scenarios.js'
export type { Row } from './db/table.js'
export { Store } from './db/store.js'
export { Table } from './db/table.js'
export type {
  Action,
  AnyResourceDefinition,
  ConflictCode,
  DataService,
  FieldOf,
  Link,
  Permission,
  RecordOf,
  ResourceDefinition,
  ResourceRules,
  SeedContext,
  SeedSpec,
  UniqueKey,
} from './resources/define.js'
export { defineResource } from './resources/define.js'
export type { AccountsDefinition, ApiDefinition, FixedToken } from './resources/api.js'
export { defineApi } from './resources/api.js'
export { REFERENCE_DATE, timeline, uniqueValue } from './resources/seed.js'
export { fixedAccounts, fixedTokens, SEED_PASSWORD } from './shop/accounts.js'
export type {
  BusinessCode,
  CodeName,
  DbDocument,
  DbSnapshot,
  Envelope,
  ErrorEnvelope,
  SeedOptions,
  ShopStore,
} from './shop/index.js'
export {
  checkDocument,
  dbDocumentSchema,
  ErrorCode,
  seedData,
  seedDefaults,
  shopApi,
  shopCodeTable as codes,
  shopResources,
} from './shop/index.js'
export { shopCodes } from './shop/codes.js'
export * from './shop/schemas.js'
export type { ApiDocument, ApiSnapshot, ApiStore } from './sandbox/create-sandbox.js'
export type {
  Sandbox,
  ShopApi,
  ShopSandboxOptions,
  ShopSandboxOptions as SandboxOptions,
} from './shop/defaults.js'
export { createSandbox } from './shop/defaults.js'
export type { ResolvedOptions, SandboxOptions as ApiSandboxOptions } from './sandbox/options.js'
export type { SandboxInstance } from './state/instance.js'
export type { JournalEntry, JournalFilter } from './state/journal.js'
export type { Override, OverrideInput } from './state/overrides/index.js'
export type { Delay, RuntimeConfig, RuntimeConfigInput } from './state/runtime-config.js'
export type { UnhandledStrategy } from './sandbox/unhandled.js'
export { openApiDocument } from './shop/defaults.js'

/**
 * Declares a scenario (CONTRACT C5), `db` typed as the shop's (`db.products`); for an API of
 * your own, name its store (`defineScenario<MyStore>(…)`) or reach a table by name
 * (`db.table<Row>('name')`). Checked when a sandbox is made: a TypeError names the scenario
 * and the field.
 *
 * @example
 * const soldOut = defineScenario({
 *   name: 'sold-out',
 *   description: 'Every product out of stock',
 *   data: (db) => {
 *     for (const product of db.products.all()) db.products.replace({ ...product, stock: 0 })
 *   },
 * })
 */
export const defineScenario: <Db = ShopStore>(
  scenario: ScenarioDefinition<Db>,
) => ScenarioDefinition<Db> = defineScenarioOf
