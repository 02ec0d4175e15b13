import type { Faker } from '@faker-js/faker'
import type * as z from 'zod'
import type { CodeSpec } from '../contract/codes.js'
import type { Table } from '../db/table.js'

/**
 * Any stored record, as the engine handles records of every resource alike: identified by a
 * positive integer id, immutable once stored, fields by name. A resource's own records are
 * typed exactly by its schema ({@link RecordOf}).
 */
export type Row = { readonly id: number } & Record<string, unknown>

/**
 * Who besides admins may call an operation (admins may call everything, CONTRACT B4):
 * `admin` no one else, `anyone` any signed-in caller, `own` a member acting on their own account
 * (the account id in the path is theirs).
 */
export type Permission = 'admin' | 'anyone' | 'own'

/** The operations every resource gets. */
export type Action = 'list' | 'create' | 'read' | 'replace' | 'update' | 'delete'

/**
 * A business code by name (a generic one, or one of the API's `codes`: checked when the sandbox
 * is made), or a code object of its own (status 409 unless given).
 */
export type ConflictCode = CodeSpec | (string & {})

/** The record a schema describes (what the store keeps and the API returns). */
export type RecordOfSchema<S extends z.ZodObject> = z.output<S>

/** A field of a schema's records, by name: a typo does not compile. */
export type FieldOf<S extends z.ZodObject> = keyof z.output<S> & string

/** A field no two records share: a write that would break it is 409 with `conflict`. */
export interface UniqueKey {
  conflict: ConflictCode
  /** Compare case-insensitively, as e-mail addresses (default false). */
  ignoreCase?: boolean
}

/**
 * A record's pointers at records of another resource. Deleting the record pointed at deletes
 * the records pointing at it (through their own `remove` rule); a data document whose pointer
 * leads nowhere is refused.
 */
export interface Link<S extends z.ZodObject = z.ZodObject> {
  /** The resource pointed at: its definition (or its name). */
  resource: AnyResourceDefinition | string
  /** The field holding its id (indexed, filterable in list queries: `?userId=2`). */
  field?: FieldOf<S>
  /** Or the ids a record points at with their paths, e.g. an order's items → products. */
  ids?(record: z.output<S>): Iterable<[path: string, id: number]>
  /**
   * The record belongs to the one pointed at: nested routes `/{resource}/{id}/{name}` list,
   * create and read them, for admins and callers with this permission. The field is then
   * written once, at creation.
   */
  nested?: Permission
}

/**
 * What a resource's rules may do with the sandbox's data (the data service implements it):
 * read any table, find or change records through the same rules the API follows.
 */
export interface DataService {
  table<T extends { readonly id: number } = Row>(name: string): Table<T, string, string>
  /** The record with this id, or 404 naming it. */
  find<T extends { readonly id: number } = Row>(name: string, id: number): T
  create<T extends { readonly id: number } = Row>(name: string, input: Record<string, unknown>): T
  update<T extends { readonly id: number } = Row>(
    name: string,
    current: T,
    changes: Record<string, unknown>,
  ): T
  remove(name: string, record: { readonly id: number }): void
  /** The current time as an ISO 8601 UTC string with milliseconds. */
  now(): string
}

/** What a seeder is given: one faker for the whole data set, so seeding is one stream. */
export interface SeedContext {
  faker: Faker
  /** How many records to make. */
  count: number
  /** The fixed reference date in ms: every timestamp lies before it. */
  reference: number
  /** The records of the resources seeded before this one, by name. */
  data: Readonly<Record<string, readonly Row[]>>
  /** Reports progress every few thousand records. */
  progress(done: number): void
}

/** How a resource's seed data is made. */
export interface SeedSpec<S extends z.ZodObject = z.ZodObject> {
  /** Records by default. */
  count: number
  /** Fewest and most records a sandbox accepts (default 0 and 1,000,000). */
  min?: number
  max?: number
  /** A resource that must have records when this one has any (e.g. orders need products). */
  needs?: AnyResourceDefinition | string
  /**
   * The records in id order, without their ids (ids are 1, 2, 3…), as the schema takes them:
   * checked against it when the sandbox is made. A list, or any iterable: a generator function
   * (`*generate(context) { … yield record }`) lets a server answer other requests while it
   * makes a large data set (a scenario's), between every 1,000 records.
   */
  generate(context: SeedContext): Iterable<Omit<z.input<S>, 'id'>>
}

/** Domain rules of a resource; every one optional. They see data, never a request. */
export interface ResourceRules<T> {
  /**
   * Problems with the records a write body points at, read from the raw body whatever else is
   * wrong with it, so one 422 names them beside every failing field (`current`: on update;
   * `owner`: the owner's id a nested route's path gives).
   */
  references?(body: unknown, data: DataService, current?: T, owner?: number): string[]
  /** The stored values of a new record from a valid body (may change other records), or a 4xx. */
  create?(input: Record<string, unknown>, data: DataService): Omit<T, 'id'>
  /** The record after a valid update; returning `current` changes nothing. */
  update?(current: T, changes: Record<string, unknown>, data: DataService): T
  /** Runs before a record is deleted (e.g. gives stock back). */
  remove?(record: T, data: DataService): void
  /** What no schema can check in a data document, e.g. `total: must be 3`. */
  check?(record: T): string | undefined
}

/** Words for the OpenAPI document of one operation. */
export interface OperationWords {
  summary?: string
  description?: string
}

/**
 * One resource of the API: everything the store, the routes, the list queries, the control
 * API, the data document, the seeder, the CLI and the OpenAPI document derive from. Typed from
 * its schema: field names are the schema's, `defaults` its input's, records its output.
 */
export interface ResourceDefinition<
  S extends z.ZodObject = z.ZodObject,
  N extends string = string,
  /** The names of its unique indexes (the keys of `unique`), as `findUnique` takes them. */
  U extends string = string,
  /** The names of its group indexes (the fields of its `links`), as `group` takes them. */
  G extends string = string,
> {
  /** Carries `U` and `G` to the types of its table (never set). */
  readonly __indexes?: { unique: U; groups: G }
  /** The collection: its path segment, tag, document key and seed count option, e.g. `products`. */
  name: N
  /** One record, e.g. `product`: path parameter `product_id`, messages, operation ids. */
  singular: string
  /**
   * The record as stored and returned: an object with an integer `id`. `id`, `createdAt` and
   * `updatedAt` are read-only whether marked so or not.
   */
  schema: S
  /** Unique fields (`id` always is). */
  unique?: { readonly [K in FieldOf<S>]?: UniqueKey }
  /**
   * What list queries allow (CONTRACT B3): sortable fields, and the text `keyword` searches
   * (without it, `keyword` is refused 400 on this resource): several fields joined by
   * `'\u0000'`, which no keyword matches across (a keyword holding U+0000 matches nothing).
   */
  list: {
    sortable: readonly FieldOf<S>[]
    keyword?(record: z.output<S>): string
  }
  /** Who besides admins may call each action (default: admins only). */
  permissions?: Partial<Record<Action, Permission>>
  /** Fields only an admin may set or change (403 for anyone else who tries). */
  adminOnly?: readonly FieldOf<S>[]
  /** Defaults of writable fields when a create body leaves them out (checked against the schema). */
  defaults?: Partial<z.input<S>>
  /** Request bodies, when the derived ones (the writable fields) do not fit. */
  bodies?: {
    create?: z.ZodObject
    replace?: z.ZodObject
    patch?: z.ZodObject
    /** POST on the nested route (default: the create body without the owner's field). */
    nestedCreate?: z.ZodObject
  }
  links?: readonly Link<S>[]
  rules?: ResourceRules<z.output<S>>
  /** Business errors the rules raise, per write action (for the OpenAPI document). */
  errors?: Partial<Record<'create' | 'update', readonly ConflictCode[]>>
  seed: SeedSpec<S>
  /** OpenAPI words: the tag's description and any operation's summary or description. */
  docs?: { description?: string; operations?: Partial<Record<Action, OperationWords>> }
}

/** Any definition: a list of them mixes schemas. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each list entry has its own schema
export type AnyResourceDefinition = ResourceDefinition<any, string>

/** The record type of a definition: exactly its schema's output. */
export type RecordOf<D> = D extends ResourceDefinition<infer S, string> ? z.output<S> : never

/** A map from each definition's name to its records, its table or a count. */
export type Named<
  D extends readonly AnyResourceDefinition[],
  V extends 'records' | 'table' | 'count',
> = {
  -readonly [K in D[number] as K['name']]: V extends 'records'
    ? RecordOf<K>[]
    : V extends 'table'
      ? Table<RecordOf<K>, UniqueNamesOf<K>, GroupNamesOf<K>>
      : number
}

/** The unique index names of a definition (`findUnique('email', …)`): string when not known. */
export type UniqueNamesOf<D> =
  D extends ResourceDefinition<z.ZodObject, string, infer U, string> ? U : string
/** The group index names of a definition (`group('userId', …)`): string when not known. */
export type GroupNamesOf<D> =
  D extends ResourceDefinition<z.ZodObject, string, string, infer G> ? G : string

/** What a schema without an integer `id` is told, instead of compiling. */
type NeedsId<S extends z.ZodObject> =
  z.output<S> extends { id: number }
    ? unknown
    : { schema: 'needs an integer id field, e.g. id: readOnly(idSchema)' }

/**
 * Declares a resource: one file that gives a real API's resource CRUD, list queries, auth,
 * the contract's errors, the control API, persistence and OpenAPI in all three modes. What
 * types cannot catch is refused with a TypeError naming the resource and the field when a
 * sandbox is made.
 *
 * @example
 * const categories = defineResource({
 *   name: 'categories',
 *   singular: 'category',
 *   schema: categorySchema,
 *   unique: { slug: { conflict: { code: 40910, message: 'Slug already used' } } },
 *   list: { sortable: ['id', 'name'], keyword: (category) => category.name },
 *   permissions: { list: 'anyone', read: 'anyone' },
 *   seed: { count: 8, generate: ({ faker, count }) => … },
 * })
 */
export function defineResource<
  S extends z.ZodObject,
  const N extends string,
  const Unique extends { readonly [K in FieldOf<S>]?: UniqueKey } = Record<never, never>,
  const Linked extends FieldOf<S> = never,
>(
  definition: Omit<ResourceDefinition<S, N>, 'unique' | 'links'> & {
    unique?: Unique
    links?: readonly (Link<S> & { field?: Linked })[]
  } & NeedsId<S>,
): ResourceDefinition<S, N, keyof Unique & string, Linked> {
  return definition as ResourceDefinition<S, N, keyof Unique & string, Linked>
}

/** The name of a resource given by definition or by name. */
export function nameOf(resource: AnyResourceDefinition | string): string {
  return typeof resource === 'string' ? resource : resource.name
}
