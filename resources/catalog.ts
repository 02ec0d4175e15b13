import * as z from 'zod'
import { ApiError } from '../contract/api-error.js'
import { codeEntry } from '../contract/codes.js'
import { once } from '../contract/once.js'
import { documented, readOnlyFields, schemaRegistry } from '../contract/registry.js'
import type { TableSpec } from '../db/store.js'
import { foldCase } from '../db/store.js'
import type {
  Action,
  AnyResourceDefinition,
  Link,
  Permission,
  ResourceDefinition,
  Row,
} from './define.js'
import type { ListSpec } from './list.js'
import type { QuerySchema } from './query.js'
import { listQuerySchema, recordQuerySchema } from './query.js'

/** The most records of one resource a sandbox accepts unless its definition says otherwise. */
export const DEFAULT_MAX_RECORDS = 1_000_000

/** A definition with everything derived from it, computed once. */
export interface Resource<T extends Row = Row> {
  readonly definition: ResourceDefinition<T>
  readonly name: string
  readonly singular: string
  /** The path parameter naming one record, e.g. `product_id`. */
  readonly idParam: string
  /** The OpenAPI component of a record, e.g. `Product`. */
  readonly component: string
  /** The record schema, documented under {@link component}. */
  readonly schema: z.ZodObject
  readonly fields: readonly string[]
  /** Fields no client may write: shown as read-only in strict mode. */
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
  readonly listSpec: ListSpec<T>
  /** The list spec on the nested route (no owner filter: the path says whose). */
  readonly nestedListSpec: ListSpec<T>
  readonly listQuery: QuerySchema
  readonly nestedListQuery: QuerySchema
  readonly recordQuery: QuerySchema
  /** The link this resource is nested under, with the resource it points at. */
  readonly owner?: { link: Link<T> & { field: string; nested: Permission }; parent: Resource }
  /** Links of other resources pointing at this one: deleting a record deletes theirs. */
  readonly dependents: Array<{ resource: Resource; link: Link<Row> }>
  readonly table: TableSpec
  /** Who besides admins may call an action. */
  permission(action: Action): Permission
  /** 409 for a unique field another record holds. */
  conflict(field: string, value: unknown): ApiError
  readonly seed: { count: number; min: number; max: number; needs?: string }
}

const compiled = new WeakMap<AnyResourceDefinition, Resource>()

/**
 * The resources of an API, compiled from their definitions: what the store, routes, document
 * check, seeder, control API and OpenAPI document of a sandbox are made from.
 */
export class Catalog {
  readonly resources: readonly Resource[]
  readonly #byName = new Map<string, Resource>()

  constructor(definitions: readonly AnyResourceDefinition[]) {
    const resources = definitions.map((definition) => compile(definition))
    for (const resource of resources) {
      if (this.#byName.has(resource.name))
        throw new TypeError(`two resources are named ${resource.name}`)
      if (!/^[a-z][a-zA-Z0-9-]*$/.test(resource.name))
        throw new TypeError(
          `a resource name is a path segment like "categories", got "${resource.name}"`,
        )
      this.#byName.set(resource.name, resource)
    }
    this.resources = resources.map((resource) => withLinks(resource, this.#byName, resources))
    for (const resource of this.resources) this.#byName.set(resource.name, resource)
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
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** A schema with a component id: the given one when it has one already, else a documented copy. */
function withId(schema: z.ZodObject, id: string): z.ZodObject {
  return schemaRegistry.get(schema)?.id ? schema : documented(schema, { id })
}

/** The link a resource is nested under (its owner's field), if any. */
function nestedLink<T extends Row>(definition: ResourceDefinition<T>) {
  return definition.links?.find((link) => link.nested && link.field)
}

const mask = (names: readonly string[]) =>
  Object.fromEntries(names.map((field) => [field, true as const])) as never

/** The request bodies of a resource: the definition's own, else derived from its record schema. */
function bodySchemas<T extends Row>(
  definition: ResourceDefinition<T>,
  component: string,
  readOnly: readonly string[],
): Resource['bodies'] {
  const { schema } = definition
  const shape = schema.shape as Record<string, z.ZodType>
  const nested = nestedLink(definition)
  const writable = Object.keys(shape).filter((field) => !readOnly.includes(field))
  const defaults = Object.fromEntries(
    Object.entries(definition.defaults ?? {}).map(([field, value]) => [
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

function compile<T extends Row>(definition: ResourceDefinition<T>): Resource<T> {
  const known = compiled.get(definition) as Resource<T> | undefined
  if (known) return known
  const { name, singular, schema } = definition
  const component = schemaRegistry.get(schema)?.id ?? capitalize(singular)
  const recordSchema = schemaRegistry.get(schema)?.id
    ? schema
    : documented(schema, { id: component })
  const shape = schema.shape as Record<string, z.ZodType>
  const fields = Object.keys(shape)
  // The fields the deferred body schemas name, checked now: a definition's mistake shows when
  // the sandbox is created, not at its first write.
  const named = [
    ...Object.keys(definition.defaults ?? {}),
    ...(definition.adminOnly ?? []),
    ...(definition.links ?? []).flatMap((link) => (link.field ? [link.field] : [])),
  ]
  for (const field of named) {
    if (!(field in shape)) throw new TypeError(`${name}: no field ${field} in its schema`)
  }
  const nested = nestedLink(definition)
  const status = shape.status
  const listSpec: ListSpec<T> = {
    fields: fields as ListSpec<T>['fields'],
    sortable: definition.list.sortable,
    statuses: status instanceof z.ZodEnum ? (status.options as string[]) : [],
    keywordText: definition.list.keyword,
    idFilters: Object.fromEntries(
      (definition.links ?? []).flatMap((link) => (link.field ? [[link.field, link.field]] : [])),
    ),
  }
  const nestedListSpec: ListSpec<T> = {
    ...listSpec,
    idFilters: Object.fromEntries(
      Object.entries(listSpec.idFilters ?? {}).filter(([, field]) => field !== nested?.field),
    ),
  }
  const uniqueKeys = Object.fromEntries(
    Object.entries(definition.unique ?? {}).map(([field, key]) => [
      field,
      key.ignoreCase
        ? (record: { id: number }) => foldCase(String((record as Row)[field]))
        : (record: { id: number }) => String((record as Row)[field]),
    ]),
  )
  // What only validation and the OpenAPI document need is built on first use.
  const readOnly = once(() => [...readOnlyFields(schema), ...(nested ? [nested.field!] : [])])
  const bodies = once(() => bodySchemas(definition, component, readOnly()))
  const listQuery = once(() => listQuerySchema(listSpec))
  const nestedListQuery = once(() => listQuerySchema(nestedListSpec))
  const recordQuery = once(() => recordQuerySchema(fields))
  const resource: Resource<T> = {
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
      unique: uniqueKeys,
      groups: Object.fromEntries(
        (definition.links ?? []).flatMap((link) =>
          link.field
            ? [[link.field, (record: { id: number }) => (record as Row)[link.field!] as number]]
            : [],
        ),
      ),
    },
    permission: (action) => definition.permissions?.[action] ?? 'admin',
    conflict(field, value) {
      const entry = codeEntry(definition.unique![field]!.conflict)
      return new ApiError(entry.status, entry.code, `${entry.message}: '${String(value)}'`)
    },
    seed: {
      count: definition.seed.count,
      min: definition.seed.min ?? 0,
      max: definition.seed.max ?? DEFAULT_MAX_RECORDS,
      ...(definition.seed.needs ? { needs: definition.seed.needs } : {}),
    },
  }
  compiled.set(definition, resource as unknown as Resource)
  return resource
}

/** The resource with its owner and dependents resolved against the whole catalog. */
function withLinks(
  resource: Resource,
  byName: ReadonlyMap<string, Resource>,
  all: readonly Resource[],
): Resource {
  for (const link of resource.definition.links ?? []) {
    if (!byName.has(link.resource))
      throw new TypeError(`${resource.name} links to ${link.resource}, which is not defined`)
  }
  if (resource.seed.needs && !byName.has(resource.seed.needs))
    throw new TypeError(`${resource.name} needs ${resource.seed.needs}, which is not defined`)
  const nested = nestedLink(resource.definition)
  const dependents = all.flatMap((other) =>
    (other.definition.links ?? [])
      .filter((link) => link.resource === resource.name)
      .map((link) => ({ resource: other, link: link as Link<Row> })),
  )
  // Copied by descriptors, not spread: a spread would build every schema the getters defer.
  const linked = Object.defineProperties({}, Object.getOwnPropertyDescriptors(resource)) as {
    -readonly [K in keyof Resource]: Resource[K]
  }
  linked.dependents = dependents
  if (nested) {
    linked.owner = {
      link: nested as Link<Row> & { field: string; nested: Permission },
      parent: byName.get(nested.resource)!,
    }
  }
  return linked
}
