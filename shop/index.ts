import type { ProgressReporter } from '../db/progress.js'
import type { Store } from '../db/store.js'
import type { DocumentCheck } from '../resources/document.js'
import { checkDocument as checkDocumentOf, documentSchemas } from '../resources/document.js'
import { DEFAULT_SEED, prepareDefaultSeed, seedCatalog } from '../resources/seed.js'
import type { Named } from '../resources/define.js'
import { Catalog } from '../resources/catalog.js'
import { orders } from './orders.js'
import { products } from './products.js'
import { users } from './users.js'

/**
 * The Shop API's resources, in the order they are seeded, stored and documented: the one list
 * every part of the sandbox derives from (routes, store, data document, control API, CLI
 * counts, OpenAPI). A sandbox may add resources of its own after them.
 */
export const shopResources = [users, products, orders] as const

/** The Shop API's words for its OpenAPI document. */
export const shopApi = {
  title: 'Shop API',
  description:
    'Users, products, and orders that belong to users. Served by shop-sandbox: the paths under /__sandbox (tag "sandbox") and the X-Sandbox-* headers exist only in the sandbox.',
  /** The resource whose records are the accounts tokens stand for (CONTRACT B4). */
  accounts: users.name,
}

/** The shop's resources compiled once, shared by every sandbox that adds none. */
export const shopCatalog = new Catalog(shopResources)
prepareDefaultSeed(shopCatalog, 'shop-seed.json')

/** The whole data set as one JSON document: `{ users: User[], products: Product[], orders: Order[] }`. */
export type DbDocument = Named<typeof shopResources, 'records'>

/** A document plus the id sequences, so a restore continues exactly where the snapshot was. */
export interface DbSnapshot extends DbDocument {
  nextIds: ShopCounts
}

/** Records per resource: `{ users: 50, products: 30, orders: 100 }` style. */
export type ShopCounts = Named<typeof shopResources, 'count'>

/** One sandbox's data: a table per resource, also as a property (`db.users`). */
export type ShopStore = { toJSON(): DbDocument; snapshot(): DbSnapshot } & Store &
  Readonly<Named<typeof shopResources, 'table'>>

/** How much data to generate, and from which seed: the same seed and counts give byte-identical data. */
export type SeedOptions = { seed?: number } & Partial<ShopCounts>

/** The default seed and counts: `{ seed: 1, users: 50, products: 30, orders: 100 }`. */
export const seedDefaults = {
  seed: DEFAULT_SEED,
  ...Object.fromEntries(shopCatalog.resources.map(({ name, seed }) => [name, seed.count])),
} as { seed: number } & ShopCounts

/**
 * Generates the shop's data set, deterministically: faker is seeded and every date is derived
 * from the fixed reference date, never from the clock.
 *
 * @example
 * const data = seedData({ seed: 7, users: 10, products: 5, orders: 20 })
 */
export function seedData(options: SeedOptions = {}, onProgress?: ProgressReporter): DbSnapshot {
  return seedCatalog(shopCatalog, options, onProgress) as unknown as DbSnapshot
}

/** The data document's schema (`GET/PUT /__sandbox/db`, the `--data` file). */
export const dbDocumentSchema = documentSchemas(shopCatalog).document

/**
 * Validates a data document of the shop: every record against its schema, then what no single
 * record can show (unique keys, links, totals). Reports the first problem, naming the record.
 */
export function checkDocument(input: unknown, onProgress?: ProgressReporter): DocumentCheck {
  return checkDocumentOf(shopCatalog, input, onProgress)
}
