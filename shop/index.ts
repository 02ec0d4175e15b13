import { seedLocale } from './faker-locale.js'
import type { ProgressReporter } from '../db/progress.js'
import type { Store } from '../db/store.js'
import type { DocumentCheck } from '../resources/document.js'
import { checkDocument as checkDocumentOf, documentSchemas } from '../resources/document.js'
import { DEFAULT_SEED, prepareDefaultSeed, seedCatalog } from '../resources/seed.js'
import type { Named } from '../resources/define.js'
import { defineApi } from '../resources/api.js'
import { Catalog, markProven } from '../resources/catalog.js'
import { codeNumbers, codes } from '../contract/codes.js'
import type {
  Envelope as GenericEnvelope,
  ErrorEnvelope as GenericErrorEnvelope,
} from '../contract/envelope.js'
import { fixedAccounts, fixedTokens, SEED_PASSWORD } from './accounts.js'
import { shopCodes } from './codes.js'
import { orders } from './orders.js'
import { products } from './products.js'
import { users } from './users.js'
import { shopScenarios } from './scenarios.js'

/**
 * The Shop API's resources, in the order they are seeded, stored and documented: the one list
 * every part of the sandbox derives from (routes, store, data document, control API, CLI
 * counts, OpenAPI). A sandbox may add resources of its own after them.
 */
export const shopResources = [users, products, orders] as const

/**
 * The Shop API as the engine serves it: its resources, its accounts (users, signing in by
 * e-mail with the seed password; the two fixed tokens), its own business codes and the words
 * of its OpenAPI document. The engine reads nothing else of the shop.
 */
export const shopApi = defineApi({
  title: 'Shop API',
  description:
    'Users, products, and orders that belong to users. Served by shop-sandbox: the paths under /__sandbox (tag "sandbox") and the X-Sandbox-* headers exist only in the sandbox.',
  resources: shopResources,
  accounts: {
    resource: users,
    login: 'email',
    password: SEED_PASSWORD,
    role: { field: 'role', admin: 'admin' },
    tokens: fixedTokens.map(({ token, userId }) => {
      const account = fixedAccounts[userId - 1]!
      return { token, userId, description: `user ${userId}, ${account.email}, ${account.role}` }
    }),
  },
  codes: shopCodes,
  scenarios: shopScenarios,
  // The few lists of faker's English the shop's seeders use: a browser bundle carries just those.
  fakerLocale: seedLocale,
})

// Checked by the suite (test/shop/definitions.test.ts), not again at every start.
markProven(shopApi)

/** The shop's resources compiled once, shared by every sandbox that adds none. */
export const shopCatalog = Catalog.of(shopApi)
/** The file the build writes the shop's default data set to (and the browser's name for it). */
export const shopPreparedSeedFile = 'shop-seed.json'
prepareDefaultSeed(shopCatalog, shopPreparedSeedFile)

/** Every business code of the Shop API (CONTRACT B5): the generic ones and the shop's own. */
export const shopCodeTable = { ...codes, ...shopCodes }

/**
 * The business codes by name, as a typed constant for clients.
 *
 * @example
 * if (body.code === ErrorCode.usernameTaken) showError('pick another name')
 */
export const ErrorCode = codeNumbers(shopCodeTable)

/** A business code's name (CONTRACT B5). */
export type CodeName = keyof typeof shopCodeTable

/** A business code number of CONTRACT B5, e.g. `40001`. */
export type BusinessCode = (typeof shopCodeTable)[CodeName]['code']

/** A failure response body of the Shop API: a business code of CONTRACT B5 (never 0) and `data: null`. */
export type ErrorEnvelope = GenericErrorEnvelope<Exclude<BusinessCode, 0>>

/**
 * Any response body of the Shop API: a union that narrows on `code`.
 *
 * @example
 * const body: Envelope<ListPayload<User>> = await res.json()
 * if (body.code === 0) body.data.list // typed, not null
 */
export type Envelope<T> = GenericEnvelope<T, Exclude<BusinessCode, 0>>

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
