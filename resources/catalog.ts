import type { LocaleDefinition } from '@faker-js/faker'
import * as z from 'zod'
import { ApiError } from '../contract/api-error.js'
import type { CodeDefinition } from '../contract/codes.js'
import { codes } from '../contract/codes.js'
import { once } from '../contract/once.js'
import { documented, readOnlyFields, schemaRegistry } from '../contract/registry.js'
import type { TableSpec } from '../db/store.js'
import type { UniqueKey } from '../db/table.js'
import { foldCase } from '../db/store.js'
import type { ApiDefinition, FixedToken } from './api.js'
import type {
  Action,
  AnyResourceDefinition,
  Link,
  Permission,
  ResourceDefinition,
  Row,
} from './define.js'
import { nameOf } from './define.js'
import {
  ALWAYS_READ_ONLY,
  checkApi,
  checkDefinition,
  codeResolver,
  MAX_RECORDS,
} from './definition-checks.js'
import { defOf, openFields } from './schema-kinds.js'
import type { ListSpec } from './list.js'
import type { QuerySchema } from './query.js'
import { listQuerySchema, recordQuerySchema } from './query.js'

/** A resolved business code: its number, status and default message, and a key naming it. */
export type ResolvedCode = CodeDefinition & { key: string }

/** A definition with everything derived from it, computed once. */
export interface Resource {
  readonly definition: AnyResourceDefinition
  readonly name: string
  readonly singular: string
  /** The path parameter naming one record, e.g. `product_id`. */
  readonly idParam: string
  /** The OpenAPI component of a record, e.g. `Product`. */
  readonly component: string
  /** The record schema, documented under {@link component}. */
  readonly schema: z.ZodObject
  readonly fields: readonly string[]
  /** Fields no client may write (`id`, `createdAt`, `updatedAt` always): read-only in strict mode. */
  readonly readOnly: readonly string[]
  readonly bodies: {
    create: z.ZodObject
    replace: z.ZodObject
    patch: z.ZodObject
    /** PUT by someone who may not write the admin-only fields. */
    memberReplace: z.ZodObject
    /** POST on the nested route: the create body without the owner's field. */
    nestedCreate?: z.ZodObject
  }
  /**
   * Whether what the bodies let through is a record as the schema takes it (each field one of
   * the schema's own, or its default; every field a new record needs): then a write without a
   * rule stores it as it is; otherwise the result is checked against the schema first.
   */
  readonly bodiesAreRecords: { readonly create: boolean; readonly update: boolean }
  /** Fields whose schema takes values of any kind (`z.unknown()`): their seeds are checked as JSON. */
  readonly openFields: readonly string[]
  readonly listSpec: ListSpec<Row>
  /** The list spec on the nested route (no owner filter: the path says whose). */
  readonly nestedListSpec: ListSpec<Row>
  readonly listQuery: QuerySchema
  readonly nestedListQuery: QuerySchema
  readonly recordQuery: QuerySchema
  /** The link this resource is nested under, with the resource it points at. */
  readonly owner?: { link: Link & { field: string; nested: Permission }; parent: Resource }
  /** Links of other resources pointing at this one: deleting a record deletes theirs. */
  readonly dependents: Array<{ resource: Resource; link: Link }>
  readonly table: TableSpec
  /** Who besides admins may call an action. */
  permission(action: Action): Permission
  /** 409 (or the code's status) for a unique field another record holds. */
  conflict(field: string, value: unknown): ApiError
  /**
   * The conflict this resource answers `Prefer: code=409` with: its first unique key's, else
   * its first business error with status 409, else the generic one.
   */
  readonly conflictCode: ResolvedCode
  /** The business errors its rules raise, per write action, resolved. */
  readonly errors: { create: readonly ResolvedCode[]; update: readonly ResolvedCode[] }
  /** The conflicts of its unique keys, resolved (what a create or update can answer). */
  readonly uniqueConflicts: readonly ResolvedCode[]
  readonly seed: { count: number; min: number; max: number; needs?: string }
}

/** Who signs in, resolved against the API's resources (CONTRACT B4). */
export interface Accounts {
  readonly resource: Resource
  /** The unique field a caller signs in with. */
  readonly login: string
  readonly password: string
  /** The role field and its admin value, or null: every account is a member. */
  readonly role: { field: string; admin: string } | null
  readonly tokens: readonly FixedToken[]
}

const cache = new WeakMap<ApiDefinition, Catalog>()

/** APIs whose definitions the suite checks (the shop's): their catalog is made without checking them again at every start. */
const proven = new WeakSet<ApiDefinition>()

/**
 * Marks an API whose definitions the suite runs {@link checkCatalog} on (the shop's, in
 * test/shop), so a sandbox's start skips those checks. Only for definitions of this package.
 */
export function markProven(api: ApiDefinition): void {
  proven.add(api)
}

/** Whether an API's definitions (its scenarios' too) are proven by the suite (see {@link markProven}). */
export function isProven(api: ApiDefinition): boolean {
  return proven.has(api)
}

/**
 * Every check of an API's definitions, throwing a TypeError naming the resource and field of the
 * first mistake: the API, then names and singulars, the accounts resource, each definition.
 * `own`: how many of `api.resources` are the API's own (see the constructor).
 */
export function checkCatalog(api: ApiDefinition, own = Number.POSITIVE_INFINITY): void {
  checkApi(api)
  const code = codeResolver(api)
  const definitions = api.resources
  const names = new Set<string>()
  const singulars = new Map<string, string>()
  const accountsName = nameOf(api.accounts.resource)
  const place = (index: number) =>
    index < own ? `api.resources[${index}]` : `resources[${index - own}]`
  for (const [index, definition] of definitions.entries()) {
    const { name, singular } = (definition ?? {}) as { name?: unknown; singular?: unknown }
    if (typeof name === 'string' && names.has(name))
      throw new TypeError(
        `${place(index)}.name: ${name} is taken${definitions.findIndex((one) => one?.name === name) < own && index >= own ? ' by a resource of the API' : ' by another resource'}; pick another name`,
      )
    if (typeof name === 'string') names.add(name)
    if (typeof singular === 'string') {
      const other = singulars.get(singular)
      // The singular names the path parameter ({user_id}), messages and operation ids.
      if (other !== undefined)
        throw new TypeError(
          `${String(name)}.singular: ${other} is called ${singular} already; each resource needs its own singular`,
        )
      singulars.set(singular, String(name))
    }
  }
  if (!names.has(accountsName))
    throw new TypeError(
      `api.accounts.resource: ${accountsName} is not a resource of this API (${[...names].join(', ')})`,
    )
  definitions.forEach((definition, index) =>
    checkDefinition(definition, place(index), {
      names,
      code,
      accounts: accountsName,
    }),
  )
  // `seed.needs` says whose records a seeder reads: a chain of them that comes back to where it
  // started could not run in any order. Each resource needs one at most: a chain is followed.
  // Its own records it may need (a seeder reading the ones it made): no order to keep there.
  const needs = new Map(
    definitions.flatMap((definition) => {
      const needed = definition.seed?.needs ? nameOf(definition.seed.needs) : undefined
      return needed && needed !== definition.name ? [[definition.name, needed] as const] : []
    }),
  )
  for (const start of needs.keys()) {
    const chain = new Set([start])
    for (let next = needs.get(start); next !== undefined; next = needs.get(next)) {
      if (next === start)
        throw new TypeError(
          `${start}.seed.needs: ${[...chain, start].join(' needs ')}: seeders that need each other cannot run one after the other; drop one of the needs`,
        )
      if (chain.has(next)) break
      chain.add(next)
    }
  }
}

/**
 * An API compiled from its definition: what the store, routes, auth, document check, seeder,
 * control API and OpenAPI document of a sandbox are made from. Made with {@link Catalog.of}.
 */
export class Catalog {
  readonly api: ApiDefinition
  readonly resources: readonly Resource[]
  readonly accounts: Accounts
  /**
   * The order seeders run in: each after the resources it needs or links to (so its seeder
   * finds their records in `data`), else in definition order.
   */
  readonly seedOrder: readonly Resource[]
  /** The resources a sandbox added to the API's own (its `resources` option), by name. */
  readonly added: readonly string[]
  /** The faker locale the seeders run with, or null for faker's whole English locale. */
  readonly fakerLocale: (() => LocaleDefinition) | null
  /** The API's own business codes (the generic ones are everyone's), by name. */
  readonly codes: Readonly<Record<string, CodeDefinition>>
  /**
   * The API's first code with status 409 (the shop's 40001), if any: the conflict of a route with
   * no resource of its own (`POST /sessions`) and of a stub, for `Prefer: code=409` and an
   * override's 409 alike; a resource's route answers its own.
   */
  readonly conflict: CodeDefinition | undefined
  readonly #byName = new Map<string, Resource>()
  readonly #code: ReturnType<typeof codeResolver>

  /**
   * The catalog of an API, with resources of its own added after the API's (made once per API
   * when none are added). Throws a TypeError naming the resource and field of any mistake.
   */
  static of(api: ApiDefinition, extra: readonly AnyResourceDefinition[] = []): Catalog {
    if (extra.length > 0) {
      // Seeders of yours may use any of faker's English: the API's own slice is not enough.
      const { fakerLocale: _slice, ...rest } = api
      return new Catalog({ ...rest, resources: [...api.resources, ...extra] }, api.resources.length)
    }
    let catalog = cache.get(api)
    if (!catalog) cache.set(api, (catalog = new Catalog(api)))
    return catalog
  }

  /**
   * @param own how many of `api.resources` are the API's own: the rest were added by a
   *   sandbox's `resources` option, and errors number them as that option does.
   */
  private constructor(api: ApiDefinition, own = Number.POSITIVE_INFINITY) {
    if (!proven.has(api)) checkCatalog(api, own)
    this.api = api
    this.codes = api.codes ?? {}
    this.conflict = Object.values(this.codes).find((code) => code.status === 409)
    this.#code = codeResolver(api)
    const resources = api.resources.map((definition) => compile(definition, this.#code))
    for (const resource of resources) this.#byName.set(resource.name, resource)
    this.resources = resources.map((resource) => withLinks(resource, this.#byName, resources))
    for (const resource of this.resources) this.#byName.set(resource.name, resource)
    this.accounts = this.#resolveAccounts(api)
    this.fakerLocale = api.fakerLocale ?? null
    this.added = this.names.slice(Math.min(own, this.resources.length))
    this.seedOrder = seedOrder(this.resources)
  }

  #resolveAccounts(api: ApiDefinition): Accounts {
    const { accounts } = api
    const name = nameOf(accounts.resource)
    const resource = this.#byName.get(name)
    if (!resource)
      throw new TypeError(
        `api.accounts.resource: ${name} is not a resource of this API (${this.names.join(', ')})`,
      )
    const login = accounts.login ?? 'email'
    if (!(resource.table.unique ?? {})[login])
      throw new TypeError(
        `api.accounts.login: ${login} must be a unique field of ${name} (callers are found by it)`,
      )
    let role: Accounts['role'] = null
    if (accounts.role) {
      if (!resource.fields.includes(accounts.role.field))
        throw new TypeError(`api.accounts.role.field: no field ${accounts.role.field} in ${name}`)
      const field = resource.schema.shape[accounts.role.field] as z.ZodType
      if (!field.safeParse(accounts.role.admin).success)
        throw new TypeError(
          `api.accounts.role.admin: ${JSON.stringify(accounts.role.admin)} is not a value ${name}.${accounts.role.field} can hold, so no account could be an admin`,
        )
      role = accounts.role
    } else if (resource.fields.includes('role')) role = { field: 'role', admin: 'admin' }
    // Whoever may write an account's role could make an account an admin.
    const writers = (['create', 'replace', 'update'] as const).filter(
      (action) => resource.permission(action) !== 'admin',
    )
    if (role && writers.length > 0 && !(resource.definition.adminOnly ?? []).includes(role.field))
      throw new TypeError(
        `${name}.adminOnly: must list ${role.field}, the role that makes an account an admin${accounts.role ? '' : ' (a field named role is taken as it)'}: ${writers.join(' and ')} ${writers.length > 1 ? 'are' : 'is'} not for admins only, so a member could make an account an admin`,
      )
    return { resource, login, password: accounts.password, role, tokens: accounts.tokens ?? [] }
  }

  /** The resource of a name; throws for an unknown one (a definition's mistake). */
  get(name: string): Resource {
    const resource = this.#byName.get(name)
    if (!resource) throw new TypeError(`no resource named ${name}`)
    return resource
  }

  /** The names, in definition order. */
  get names(): string[] {
    return this.resources.map((resource) => resource.name)
  }

  /** Every business code of the API: the generic ones, then its own. */
  get allCodes(): Readonly<Record<string, CodeDefinition>> {
    return { ...codes, ...this.codes }
  }
}

/** Resources in an order where each comes after those it needs or links to, where that can be. */
function seedOrder(resources: readonly Resource[]): Resource[] {
  const before = (resource: Resource) =>
    new Set(
      [
        ...(resource.seed.needs ? [resource.seed.needs] : []),
        ...((resource.definition.links ?? []) as readonly Link[]).map((link) =>
          nameOf(link.resource),
        ),
      ].filter((name) => name !== resource.name),
    )
  const order: Resource[] = []
  const placed = new Set<string>()
  const waiting = [...resources]
  while (waiting.length > 0) {
    // The first (in definition order) whose dependencies are seeded; on a cycle, the first.
    const index = Math.max(
      0,
      waiting.findIndex((resource) => [...before(resource)].every((name) => placed.has(name))),
    )
    const [next] = waiting.splice(index, 1)
    order.push(next!)
    placed.add(next!.name)
  }
  return order
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** A schema with a component id: the given one when it has one already, else a documented copy. */
function withId(schema: z.ZodObject, id: string): z.ZodObject {
  return schemaRegistry.get(schema)?.id ? schema : documented(schema, { id })
}

/** The link a resource is nested under (its owner's field), if any. */
function nestedLink(definition: AnyResourceDefinition): Link | undefined {
  return (definition.links as readonly Link[] | undefined)?.find(
    (link) => link.nested && link.field,
  )
}

const mask = (names: readonly string[]) =>
  Object.fromEntries(names.map((field) => [field, true as const])) as never

/** The request bodies of a resource: the definition's own, else derived from its record schema. */
function bodySchemas(
  definition: AnyResourceDefinition,
  component: string,
  readOnly: readonly string[],
): Resource['bodies'] {
  const schema = definition.schema as z.ZodObject
  const shape = schema.shape as Record<string, z.ZodType>
  const nested = nestedLink(definition)
  const writable = Object.keys(shape).filter((field) => !readOnly.includes(field))
  const defaults = Object.fromEntries(
    Object.entries((definition.defaults ?? {}) as Record<string, unknown>).map(([field, value]) => [
      field,
      (shape[field] as z.ZodType).default(value as never),
    ]),
  )
  // The owner's field is written once: at creation, then read-only.
  const create = withId(
    definition.bodies?.create ??
      schema.pick(mask([...writable, ...(nested ? [nested.field!] : [])])).extend(defaults),
    `${component}Create`,
  )
  const replace = withId(
    definition.bodies?.replace ?? schema.pick(mask(writable)),
    `${component}Replace`,
  )
  const patch = withId(definition.bodies?.patch ?? replace.partial(), `${component}Patch`)
  const adminOnly = new Set<string>(definition.adminOnly ?? [])
  const memberReplace = adminOnly.size
    ? patch.required(mask(Object.keys(replace.shape).filter((field) => !adminOnly.has(field))))
    : replace
  return {
    create,
    replace,
    patch,
    memberReplace,
    ...(nested
      ? {
          nestedCreate: withId(
            definition.bodies?.nestedCreate ?? create.omit(mask([nested.field!])),
            `Nested${component}Create`,
          ),
        }
      : {}),
  }
}

/** A definition compiled (it was checked already). */
function compile(
  definition: AnyResourceDefinition,
  code: ReturnType<typeof codeResolver>,
): Resource {
  const { name, singular } = definition
  const schema = definition.schema as z.ZodObject
  const component = schemaRegistry.get(schema)?.id ?? capitalize(singular)
  const recordSchema = schemaRegistry.get(schema)?.id
    ? schema
    : documented(schema, { id: component })
  const shape = schema.shape as Record<string, z.ZodType>
  const fields = Object.keys(shape)
  const nested = nestedLink(definition)
  const links = (definition.links ?? []) as readonly Link[]
  const status = shape.status
  const keyword = definition.list.keyword as ((record: Row) => string) | undefined
  const listSpec: ListSpec<Row> = {
    fields,
    sortable: definition.list.sortable,
    statuses: status instanceof z.ZodEnum ? (status.options as string[]) : [],
    ...(keyword ? { keywordText: keyword } : {}),
    idFilters: Object.fromEntries(
      links.flatMap((link) => (link.field ? [[link.field, link.field]] : [])),
    ),
  }
  const nestedListSpec: ListSpec<Row> = {
    ...listSpec,
    idFilters: Object.fromEntries(
      Object.entries(listSpec.idFilters ?? {}).filter(([, field]) => field !== nested?.field),
    ),
  }
  const unique = (definition.unique ?? {}) as Record<
    string,
    { conflict: unknown; ignoreCase?: boolean }
  >
  const conflicts = Object.fromEntries(
    Object.entries(unique).map(([field, key]) => [
      field,
      code(key.conflict, `${name}.unique.${field}.conflict`),
    ]),
  )
  const uniqueKeys = Object.fromEntries(
    Object.entries(unique).map(([field, key]) => [
      field,
      uniqueKey(field, key.ignoreCase === true),
    ]),
  )
  const errors = {
    create: (definition.errors?.create ?? []).map((spec: unknown, index: number) =>
      code(spec, `${name}.errors.create[${index}]`),
    ),
    update: (definition.errors?.update ?? []).map((spec: unknown, index: number) =>
      code(spec, `${name}.errors.update[${index}]`),
    ),
  }
  const conflictCode = Object.values(conflicts)[0] ??
    [...errors.create, ...errors.update].find((entry) => entry.status === 409) ?? {
      key: 'conflict',
      ...codes.conflict,
    }
  // What only validation and the OpenAPI document need is built on first use.
  const readOnly = once(() => [
    ...new Set([
      ...readOnlyFields(schema),
      ...ALWAYS_READ_ONLY.filter((field) => field in shape),
      ...(nested ? [nested.field!] : []),
    ]),
  ])
  const bodies = once(() => bodySchemas(definition, component, readOnly()))
  const bodiesAreRecords = once(() => {
    const { create, replace, patch, nestedCreate } = bodies()
    return {
      create:
        recordBody(create, schema, []) &&
        (!nestedCreate || recordBody(nestedCreate, schema, nested ? [nested.field!] : [])),
      update: recordBody(replace, schema, null) && recordBody(patch, schema, null),
    }
  })
  const listQuery = once(() => listQuerySchema(listSpec))
  const nestedListQuery = once(() => listQuerySchema(nestedListSpec))
  const recordQuery = once(() => recordQuerySchema(fields))
  return {
    definition,
    name,
    singular,
    idParam: `${singular}_id`,
    component,
    schema: recordSchema,
    fields,
    get readOnly() {
      return readOnly()
    },
    get bodies() {
      return bodies()
    },
    get bodiesAreRecords() {
      return bodiesAreRecords()
    },
    openFields: openFields(schema),
    listSpec,
    nestedListSpec,
    get listQuery() {
      return listQuery()
    },
    get nestedListQuery() {
      return nestedListQuery()
    },
    get recordQuery() {
      return recordQuery()
    },
    dependents: [],
    table: {
      name,
      unique: uniqueKeys as TableSpec['unique'],
      groups: Object.fromEntries(
        links.flatMap((link) =>
          link.field ? [[link.field, (record: Row) => record[link.field!] as number]] : [],
        ),
      ) as TableSpec['groups'],
    },
    permission: (action) => definition.permissions?.[action] ?? 'admin',
    conflict(field, value) {
      const entry = conflicts[field]!
      return new ApiError(entry.status, entry.code, `${entry.message}: '${String(value)}'`)
    },
    conflictCode,
    errors,
    uniqueConflicts: Object.values(conflicts),
    seed: {
      count: definition.seed.count,
      min: definition.seed.min ?? 0,
      max: definition.seed.max ?? MAX_RECORDS,
      ...(definition.seed.needs ? { needs: nameOf(definition.seed.needs) } : {}),
    },
  }
}

/** The resource with its owner and dependents resolved against the whole catalog. */
function withLinks(
  resource: Resource,
  byName: ReadonlyMap<string, Resource>,
  all: readonly Resource[],
): Resource {
  const nested = nestedLink(resource.definition)
  const dependents = all.flatMap((other) =>
    ((other.definition.links ?? []) as readonly Link[])
      .filter((link) => nameOf(link.resource) === resource.name)
      .map((link) => ({ resource: other, link })),
  )
  // Copied by descriptors, not spread: a spread would build every schema the getters defer.
  const linked = Object.defineProperties({}, Object.getOwnPropertyDescriptors(resource)) as {
    -readonly [K in keyof Resource]: Resource[K]
  }
  linked.dependents = dependents
  if (nested) {
    linked.owner = {
      link: nested as Link & { field: string; nested: Permission },
      parent: byName.get(nameOf(nested.resource))!,
    }
  }
  return linked
}

export type { ResourceDefinition }

/**
 * Whether every field of `body` is the record schema's own field (or it with a default, or
 * optional), and, given `given` (fields a create gets from elsewhere: the nested owner's), every
 * field a new record needs is in it. Null `given`: an update, whose missing fields the record
 * keeps.
 */
function recordBody(
  body: z.ZodObject,
  record: z.ZodObject,
  given: readonly string[] | null,
): boolean {
  const own = record.shape as Record<string, z.ZodType>
  const shape = body.shape as Record<string, z.ZodType>
  for (const [key, field] of Object.entries(shape)) {
    const inner = defOf(field)
    const wrapped = inner.type === 'default' || inner.type === 'optional'
    if (field !== own[key] && !(wrapped && inner.innerType === own[key])) return false
    if (inner.type === 'optional' && given && !own[key]!.safeParse(undefined).success) return false
  }
  if (given)
    for (const [key, field] of Object.entries(own)) {
      if (ALWAYS_READ_ONLY.includes(key) || given.includes(key)) continue
      if (!(key in shape) && !field.safeParse(undefined).success) return false
    }
  return true
}

/**
 * The key a unique field files a record under: its text (folded with `ignoreCase`) or number;
 * none for an empty field (records without one do not collide). A write asks for the same
 * value's key three times (the service's check, the table's own check, the index): the last
 * text's key is kept, so it is folded once and the index hashes one string, not three copies.
 */
function uniqueKey(field: string, ignoreCase: boolean): (record: Row) => UniqueKey | undefined {
  let lastValue: unknown
  let lastKey = ''
  return (record) => {
    const value = record[field]
    if (typeof value !== 'string') {
      if (value === undefined || value === null) return undefined
      return typeof value === 'number' ? value : String(value)
    }
    if (value === lastValue) return lastKey
    const key = ignoreCase ? foldCase(value) : value
    lastValue = value
    lastKey = key
    return key
  }
}
