import type * as z from 'zod'
import { ApiError } from '../contract/api-error.js'
import { shownValue } from '../contract/params.js'
import { noContent, success, written } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import type { Resource } from '../resources/catalog.js'
import type { Action, Link, Row } from '../resources/define.js'
import { nameOf } from '../resources/define.js'
import { runListQuery, selectFields } from '../resources/list.js'
import { parseListQuery, parseQuery } from '../resources/query.js'
import { notFound, runRule, shownId } from '../resources/service.js'
import { validateBody } from './body.js'
import type { Operation, OperationContext, OperationDocs, Principal } from './operation.js'
import type { Route } from './router.js'

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
/**
 * `a user`, `an order`: by the sound, as far as spelling tells it (a `u` or `eu` said "you", a
 * `one`, take `a`; `an update`, `an umbrella`).
 */
export const article = (word: string) =>
  /^(?:[aio]|e(?!u)|u(?![bcdfghjklmnpqrstvwxz][aeiouy]))/i.test(word) && !/^one\b/i.test(word)
    ? `an ${word}`
    : `a ${word}`

/** How a body of `resource` is validated: strict mode, and which fields are read-only. */
function bodyRules(resource: Resource, context: OperationContext) {
  return { strict: context.strict, readOnly: resource.readOnly }
}

/** The resource's reference check bound to this request's data (`current` on update, `owner` on a nested route). */
function referencesOf(
  resource: Resource,
  context: OperationContext,
  current?: Row,
  owner?: number,
) {
  const rule = resource.definition.rules?.references
  if (rule)
    return (body: unknown) => {
      const problems: unknown = runRule(resource, 'references', () =>
        rule(body, context.data, current, owner),
      )
      if (Array.isArray(problems) && problems.every((problem) => typeof problem === 'string'))
        return problems as string[]
      throw new Error(
        `${resource.name}.rules.references must return a list of problems (texts, empty when there are none), got ${shownValue(problems)}`,
      )
    }
  const links = (resource.definition.links ?? []) as readonly Link[]
  if (links.length === 0) return undefined
  // A nested link's field is the path's on a nested create, and written once: no later body sets it.
  const checked = current || owner !== undefined ? links.filter((link) => !link.nested) : links
  return (body: unknown) => linkProblems(checked, body, context)
}

/**
 * The default reference check (a resource's own `references` rule replaces it): every id a
 * body points at through a link names an existing record, so a write never leaves a link
 * leading nowhere (which a data document would then refuse). A value of the wrong type is
 * left to the schema, which names it in the same 422.
 */
function linkProblems(links: readonly Link[], body: unknown, context: OperationContext): string[] {
  if (typeof body !== 'object' || body === null) return []
  const problems: string[] = []
  for (const link of links) {
    const target = context.data.catalog.get(nameOf(link.resource))
    let pointers: Iterable<[string, unknown]>
    try {
      pointers = link.field
        ? link.field in body
          ? [[link.field, (body as Record<string, unknown>)[link.field]]]
          : []
        : link.ids!(body as never)
    } catch {
      continue // a body the schema refuses anyway: its ids cannot be read
    }
    for (const [path, id] of pointers)
      if (Number.isSafeInteger(id) && !context.data.table(target.name).get(id as number))
        problems.push(`${path}: ${target.singular} ${String(id)} does not exist`)
  }
  return problems
}

/** The `fields` of a single-record read; a read without a query builds no query schema. */
function recordFields(resource: Resource, context: OperationContext): string[] | undefined {
  if (context.query.size === 0) return undefined
  return parseQuery(resource.recordQuery, context.query, context.strict).fields as
    string[] | undefined
}

/** 201 with the new record and a `Location` header pointing at it. */
function created(context: OperationContext, path: string, record: object): ApiResponse {
  return written(record, 201, { location: `${context.basePath}${path}` })
}

/**
 * The routes of one resource (CONTRACT B2): the collection, one record, and, for a resource that
 * belongs to another, the nested routes under its owner. Each operation translates HTTP to the
 * data service and back; the rules themselves live with the resource.
 */
export function resourceRoutes(resource: Resource): Route<Operation>[] {
  const { name, singular, idParam, definition, listSpec } = resource
  const Singular = capitalize(singular)
  const words = definition.docs?.operations ?? {}
  const conflicts = resource.uniqueConflicts
  const adminOnly = definition.adminOnly ?? []
  // Assigned onto `base`, not spread: its `body` and `query` are getters, so the schemas they
  // name are built when the OpenAPI document (or strict mode) asks, not with the routes.
  const docs = (action: Action, base: Omit<OperationDocs, 'tags'>): OperationDocs =>
    Object.assign(base, words[action], { tags: [name] })
  const find = (context: OperationContext) => context.data.find(name, context.ids[idParam]!)

  const update =
    (replace: boolean) =>
    async (context: OperationContext): Promise<ApiResponse> => {
      const body = await context.readJson()
      const record = find(context)
      assertMayChange(context.principal, adminOnly, record, body)
      const schema: z.ZodObject = !replace
        ? resource.bodies.patch
        : context.principal?.admin || context.principal === null
          ? resource.bodies.replace
          : resource.bodies.memberReplace
      const changes = validateBody(
        schema,
        body,
        bodyRules(resource, context),
        referencesOf(resource, context, record),
      )
      return written(context.data.update(name, record, changes as Record<string, unknown>))
    }

  const updateErrors: OperationDocs['errors'] = [
    'notFound',
    ...(adminOnly.length ? (['permissionDenied'] as const) : []),
    'validationFailed',
    ...conflicts,
    ...resource.errors.update,
  ]

  const routes: Route<Operation>[] = [
    {
      path: `/${name}`,
      operations: {
        GET: {
          permission: resource.permission('list'),
          docs: docs('list', {
            operationId: `list${capitalize(name)}`,
            summary: `List ${name}`,
            success: { status: 200, data: resource.schema, list: true },
            get query() {
              return resource.listQuery
            },
            errors: [],
          }),
          run(context) {
            const query = parseListQuery(
              context.query,
              listSpec,
              context.strict,
              resource.listQuery,
            )
            return success(runListQuery(context.data.table(name), query, listSpec))
          },
        },
        POST: {
          permission: resource.permission('create'),
          docs: docs('create', {
            operationId: `create${Singular}`,
            summary: `Create ${article(singular)}`,
            success: { status: 201, data: resource.schema },
            get body() {
              return resource.bodies.create
            },
            errors: ['validationFailed', ...conflicts, ...resource.errors.create],
          }),
          async run(context) {
            const input = validateBody(
              resource.bodies.create,
              await context.readJson(),
              bodyRules(resource, context),
              referencesOf(resource, context),
            )
            const record = context.data.create(name, input as Record<string, unknown>)
            return created(context, `/${name}/${record.id}`, record)
          },
        },
      },
    },
    {
      path: `/${name}/{${idParam}}`,
      operations: {
        GET: {
          permission: resource.permission('read'),
          docs: docs('read', {
            operationId: `get${Singular}`,
            summary: `Get ${article(singular)}`,
            success: { status: 200, data: resource.schema },
            get query() {
              return resource.recordQuery
            },
            errors: ['notFound'],
          }),
          run(context) {
            // CONTRACT B4: query parameters (400) before the record's existence (404).
            const fields = recordFields(resource, context)
            return success(selectFields(find(context), fields))
          },
        },
        PUT: {
          permission: resource.permission('replace'),
          docs: docs('replace', {
            operationId: `replace${Singular}`,
            summary: `Replace ${article(singular)}`,
            description: 'Every writable field is required.',
            success: { status: 200, data: resource.schema },
            get body() {
              return resource.bodies.replace
            },
            errors: updateErrors,
          }),
          run: update(true),
        },
        PATCH: {
          permission: resource.permission('update'),
          docs: docs('update', {
            operationId: `update${Singular}`,
            summary: `Update ${article(singular)} partially`,
            success: { status: 200, data: resource.schema },
            get body() {
              return resource.bodies.patch
            },
            errors: updateErrors,
          }),
          run: update(false),
        },
        DELETE: {
          permission: resource.permission('delete'),
          docs: docs('delete', {
            operationId: `delete${Singular}`,
            summary: `Delete ${article(singular)}`,
            success: { status: 204, data: null, representation: resource.schema },
            errors: ['notFound'],
          }),
          run(context) {
            const record = find(context)
            context.data.remove(name, record)
            // 204, or 200 with the deleted record under Prefer: return=representation (CONTRACT B2).
            return context.wantsRepresentation ? success(record) : noContent()
          },
        },
      },
    },
  ]
  const all = resource.owner ? [...routes, ...nestedRoutes(resource)] : routes
  for (const route of all) {
    for (const [method, operation] of Object.entries(route.operations)) {
      // `Prefer: code=409` answers the resource's own conflict.
      operation.conflict = resource.conflictCode
      operation.denied = deniedRule(resource, method, route.path, operation.permission)
    }
  }
  return all
}

/** What a member may not do on a route, in words, for its 403 (CONTRACT B4). */
function deniedRule(
  resource: Resource,
  method: string,
  path: string,
  permission: Operation['permission'],
): string {
  const collection = path.endsWith(`/${resource.name}`)
  const nested = resource.owner !== undefined && !path.startsWith(`/${resource.name}`)
  const verb = (
    {
      GET: collection ? 'list' : 'read',
      POST: 'create',
      PUT: 'replace',
      PATCH: 'change',
      DELETE: 'delete',
    } as Record<string, string>
  )[method]!
  if (permission === 'own') {
    return nested
      ? `members may ${verb} only their own ${resource.name}`
      : `members may ${verb} only their own ${resource.singular}`
  }
  return `only an admin may ${verb} ${collection ? resource.name : article(resource.singular)}`
}

/** `/{owner}/{owner_id}/{name}` and `/{owner}/{owner_id}/{name}/{id}`: a member's own records. */
function nestedRoutes(resource: Resource): Route<Operation>[] {
  const { name, singular, idParam, nestedListSpec } = resource
  const { link, parent } = resource.owner!
  const field = link.field
  const Owner = capitalize(parent.singular)
  const Singular = capitalize(singular)
  const base = `/${parent.name}/{${parent.idParam}}/${name}`
  const findOwner = (context: OperationContext) =>
    context.data.find(parent.name, context.ids[parent.idParam]!)
  const tags = [name]
  return [
    {
      path: base,
      operations: {
        GET: {
          permission: link.nested,
          docs: {
            operationId: `list${Owner}${capitalize(name)}`,
            summary: `List ${article(parent.singular)}'s ${name}`,
            tags,
            success: { status: 200, data: resource.schema, list: true },
            get query() {
              return resource.nestedListQuery
            },
            errors: ['notFound'],
          },
          run(context) {
            const query = parseListQuery(
              context.query,
              nestedListSpec,
              context.strict,
              resource.nestedListQuery,
            )
            const owner = findOwner(context)
            const table = context.data.table(name)
            const owned = table.group(field, owner.id).map((id) => table.get(id)!)
            return success(runListQuery(owned, query, nestedListSpec))
          },
        },
        POST: {
          permission: link.nested,
          docs: {
            operationId: `create${Owner}${Singular}`,
            summary: `Create ${article(singular)} for this ${parent.singular}`,
            description: `The owner is the ${parent.singular} in the path.`,
            tags,
            success: { status: 201, data: resource.schema },
            get body() {
              return resource.bodies.nestedCreate!
            },
            // The owner (404), the body (422), and what a create can meet: unique keys, rules.
            errors: [
              'notFound',
              'validationFailed',
              ...resource.uniqueConflicts,
              ...resource.errors.create,
            ],
          },
          async run(context) {
            const body = await context.readJson()
            const owner = findOwner(context)
            const input = validateBody(
              resource.bodies.nestedCreate!,
              body,
              bodyRules(resource, context),
              referencesOf(resource, context, undefined, owner.id),
            )
            const record = context.data.create(name, { ...input, [field]: owner.id })
            return created(context, `/${parent.name}/${owner.id}/${name}/${record.id}`, record)
          },
        },
      },
    },
    {
      path: `${base}/{${idParam}}`,
      operations: {
        GET: {
          permission: link.nested,
          docs: {
            operationId: `get${Owner}${Singular}`,
            summary: `Get one ${singular} of this ${parent.singular}`,
            description: `404 when the ${parent.singular} does not exist, and when the ${singular} is not this ${parent.singular}’s.`,
            tags,
            success: { status: 200, data: resource.schema },
            get query() {
              return resource.recordQuery
            },
            errors: ['notFound'],
          },
          run(context) {
            const fields = recordFields(resource, context)
            const owner = findOwner(context)
            const id = context.ids[idParam]!
            const record = context.data.table(name).get(id)
            if (!record || record[field] !== owner.id)
              throw notFound(`${singular} ${shownId(id)} of ${parent.singular}`, owner.id)
            return success(selectFields(record, fields))
          },
        },
      },
    },
  ]
}

/**
 * 403 / 40300 when a caller who is not an admin sets an admin-only field to something new
 * (CONTRACT B4: only an admin may set or change a user's role; the definitions' `adminOnly`).
 */
function assertMayChange(
  principal: Principal | null,
  adminOnly: readonly string[],
  current: Readonly<Record<string, unknown>> | undefined,
  body: unknown,
): void {
  if (!principal || principal.admin || typeof body !== 'object' || body === null) return
  const changes = body as Record<string, unknown>
  for (const field of adminOnly) {
    if (field in changes && changes[field] !== current?.[field]) {
      throw ApiError.of(
        'permissionDenied',
        `permission denied: only an admin may set or change ${field}`,
      )
    }
  }
}
