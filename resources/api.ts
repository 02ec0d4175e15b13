import type { LocaleDefinition } from '@faker-js/faker'
import type { CodeDefinition } from '../contract/codes.js'
import type { AnyResourceDefinition } from './define.js'

/**
 * Resources and scenarios an API (with a sandbox's own, the `resources` and `scenarios`
 * options) holds at most: each list is counted before any of it is read, as a list of a billion
 * holes is cheap to make in code and long to walk (C3).
 */
export const MAX_RESOURCES = 1000
export const MAX_SCENARIOS = 1000

/** A token that always stands for one account (published: no secret). */
export interface FixedToken {
  token: string
  /** The account it stands for (its id in the accounts resource). */
  userId: number
  /** Shown in the start-up banner and the OpenAPI document, e.g. `user 1, admin@example.com, an admin`. */
  description?: string
}

/** Who may sign in, and how callers are told apart (CONTRACT B4). */
export interface AccountsDefinition {
  /** The resource whose records are the accounts: tokens stand for them, `own` compares their id. */
  resource: AnyResourceDefinition | string
  /** The unique field a caller signs in with (`POST /sessions { <login>, password }`; default `email`). */
  login?: string
  /** Every seeded account's password. */
  password: string
  /**
   * The field holding an account's role and the value that makes it an admin (default
   * `{ field: 'role', admin: 'admin' }`); without such a field every account is a member.
   */
  role?: { field: string; admin: string }
  /** Tokens that always stand for an account, besides those `POST /sessions` issues. */
  tokens?: readonly FixedToken[]
}

/**
 * One API as the engine serves it: its resources, who signs in, its own business codes and
 * the words of its OpenAPI document. Auth, sessions, routes, OpenAPI and options read it; the
 * engine knows nothing else of any API.
 */
export interface ApiDefinition<
  R extends readonly AnyResourceDefinition[] = readonly AnyResourceDefinition[],
> {
  /** The OpenAPI document's title, e.g. `Shop API`. */
  title: string
  description?: string
  resources: R
  accounts: AccountsDefinition
  /**
   * The business codes of this API beyond the generic ones (CONTRACT B5's own), by name: what
   * its conflicts and rules raise, listed in the OpenAPI document.
   */
  codes?: Readonly<Record<string, CodeDefinition>>
  /**
   * The faker locale its seeders use (default: faker's whole English locale). The Shop API
   * names the few lists it uses, so a browser bundle carries those instead; a sandbox with
   * resources of yours beside an API's uses the whole English locale.
   */
  fakerLocale?: () => LocaleDefinition
  /**
   * Its named scenarios (CONTRACT C5, `defineScenario`): states of the world a sandbox can be
   * put in by name, besides `default`. Checked when a sandbox is made.
   */
  scenarios?: readonly ApiScenario[]
}

/** A scenario as an API lists it (`defineScenario` gives one; checked when a sandbox is made). */
export interface ApiScenario {
  name: string
  description: string
  data?: unknown
  overrides?: readonly unknown[]
  settings?: unknown
}

/**
 * Declares an API: its resources in the order they are seeded, stored and documented, its
 * accounts and its own business codes. Checked when a sandbox is made (a TypeError names the
 * field).
 *
 * @example
 * export const shopApi = defineApi({
 *   title: 'Shop API',
 *   resources: [users, products, orders],
 *   accounts: { resource: users, password: 'password', tokens: [{ token: 'sandbox-admin-token', userId: 1 }] },
 *   codes: shopCodes,
 * })
 */
export function defineApi<const R extends readonly AnyResourceDefinition[]>(
  api: ApiDefinition<R>,
): ApiDefinition<R> {
  return api
}
