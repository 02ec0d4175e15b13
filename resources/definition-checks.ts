import * as z from 'zod'
import type { CodeDefinition } from '../contract/codes.js'
import { codes } from '../contract/codes.js'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { mustBeInteger, shownValue } from '../contract/params.js'
import { readOnlyFields } from '../contract/registry.js'
import type { ApiDefinition } from './api.js'
import { MAX_RESOURCES, MAX_SCENARIOS } from './api.js'
import type { Action, AnyResourceDefinition, Permission } from './define.js'
import { nameOf } from './define.js'
import {
  defOf,
  holdsIds,
  inheritedKey,
  JSON_INSTEAD,
  notJsonType,
  refined,
  scalarKind,
} from './schema-kinds.js'

/**
 * What a definition must be, checked when a sandbox is made: a definition is user input, so
 * each mistake is a TypeError naming the resource and the field, never a 500 at request time
 * (issue 31). Types catch most of these in TypeScript; these catch the rest, and JavaScript's.
 */

/** First path segments the engine serves itself: no resource may take them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'sessions',
  'docs',
  '__sandbox',
  'openapi.json',
])

const ACTIONS: readonly Action[] = ['list', 'create', 'read', 'replace', 'update', 'delete']
const PERMISSIONS: readonly Permission[] = ['admin', 'anyone', 'own']
const DEFINITION_KEYS = new Set([
  'name',
  'singular',
  'schema',
  'unique',
  'list',
  'permissions',
  'adminOnly',
  'defaults',
  'bodies',
  'links',
  'rules',
  'errors',
  'seed',
  'docs',
])
/** Where a misplaced key belongs, for the message. */
const NESTED_KEYS: Readonly<Record<string, string>> = {
  sortable: 'list.sortable',
  keyword: 'list.keyword',
  count: 'seed.count',
  generate: 'seed.generate',
  conflict: 'unique.<field>.conflict',
}
/** Fields every record has that no client writes: read-only whatever the schema says. */
export const ALWAYS_READ_ONLY: readonly string[] = ['id', 'createdAt', 'updatedAt']

/** A key that must name an action (`permissions`, `docs.operations`). */
function assertAction(where: string, key: string): void {
  if (!ACTIONS.includes(key as Action))
    fail(where, `is not an action; actions are ${listed(ACTIONS)}`)
}

/** A mistake in a definition. */
function fail(where: string, problem: string): never {
  throw new TypeError(`${where}: ${problem}`)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `a, b or c`. */
const listed = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`

/** Resolves code specs against the generic codes and the API's own, naming the place when unknown. */
export function codeResolver(api: ApiDefinition) {
  const own = api.codes ?? {}
  return (spec: unknown, where: string): CodeDefinition & { key: string } => {
    if (typeof spec === 'string') {
      // Own names only: `toString` is no code, though every object answers to it.
      const known = Object.hasOwn(codes, spec)
        ? (codes as Record<string, CodeDefinition>)[spec]
        : Object.hasOwn(own, spec)
          ? own[spec]
          : undefined
      if (!known)
        fail(
          where,
          `no business code named '${spec}'; give one of ${listed([...Object.keys(codes), ...Object.keys(own)].filter((name) => name !== 'success'))}, or a code object { code, message, status? }`,
        )
      return { key: spec, ...known }
    }
    if (!isObject(spec))
      fail(where, 'must be a code name or a code object { code, message, status? }')
    // One of the API's own codes given as its object (`shopCodes.skuTaken`) keeps its name.
    const named = Object.entries(own).find(([, definition]) => (definition as unknown) === spec)
    if (named) return { key: named[0], ...named[1] }
    if (
      !Number.isInteger(spec.code) ||
      (spec.code as number) < 10000 ||
      (spec.code as number) > 99999
    )
      fail(`${where}.code`, `${mustBeInteger(10000, 99999)}, got ${shownValue(spec.code)}`)
    if (typeof spec.message !== 'string' || spec.message.trim() === '')
      fail(`${where}.message`, 'must be a message in words')
    const taken = Object.entries({ ...codes, ...own }).find(
      ([, definition]) => definition.code === spec.code,
    )
    if (taken && (taken[1].message !== spec.message || taken[1].status !== (spec.status ?? 409)))
      fail(
        `${where}.code`,
        `${String(spec.code)} is '${taken[0]}' ('${taken[1].message}') already; give that code's name, or another number`,
      )
    const status = spec.status ?? 409
    if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599)
      fail(
        `${where}.status`,
        `must be an HTTP error status (400-599), got ${shownValue(spec.status)}`,
      )
    return {
      key: String(spec.code),
      code: spec.code as number,
      status: status as number,
      message: spec.message,
    }
  }
}

/**
 * Checks one definition in the context of its API (the names of every resource, its codes);
 * throws a TypeError naming the resource and the field.
 */
export function checkDefinition(
  definition: AnyResourceDefinition,
  place: string,
  context: {
    names: ReadonlySet<string>
    code: ReturnType<typeof codeResolver>
    accounts: string
  },
): void {
  const api = isObject(definition) && 'resources' in definition && 'accounts' in definition
  if (!isObject(definition) || api)
    fail(
      place,
      `must be a resource definition (defineResource({ … }))${api ? '; this is an API (defineApi): pass it as the api option, createSandbox({ api }), or --api on the command line' : ''}`,
    )
  const name = definition.name as unknown
  if (typeof name !== 'string' || !/^[a-z][a-zA-Z0-9-]*$/.test(name))
    fail(`${place}.name`, `must be a path segment like "categories", got ${shownValue(name)}`)
  if (name in Object.prototype)
    fail(`${place}.name`, `${name} is a name every JavaScript object has; pick another name`)
  if (RESERVED_NAMES.has(name))
    fail(`${name}.name`, `${name} is the sandbox's own route (/${name}); pick another name`)
  const at = (field: string) => `${name}.${field}`
  for (const key of Object.keys(definition)) {
    if (!DEFINITION_KEYS.has(key))
      fail(
        at(key),
        `is not part of a resource definition${NESTED_KEYS[key] ? `; did you mean ${NESTED_KEYS[key]}?` : ''}`,
      )
  }
  if (typeof definition.singular !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(definition.singular))
    fail(
      at('singular'),
      `must be one record's name like "category", got ${shownValue(definition.singular)}`,
    )
  const { schema } = definition
  if (!(schema instanceof z.ZodObject))
    fail(at('schema'), 'must be a zod object schema: z.object({ … })')
  const shape = schema.shape as Record<string, z.ZodType>
  const fields = new Set(Object.keys(shape))
  // No name every object has, nested ones too: a body or a record leaving `toString` or
  // `constructor` out would be read as having JavaScript's own (a function), and refused; a
  // record's `__proto__` is its prototype wherever a field is set by name (a body's was dropped,
  // and `?fields=__proto__` gave empty objects).
  const inherited = inheritedKey(schema)
  if (inherited !== null) {
    const key = inherited.slice(inherited.lastIndexOf('.') + 1)
    fail(
      at(`schema.${inherited}`),
      key === '__proto__'
        ? 'is the prototype of every JavaScript object, not a field name; pick another name'
        : `${key} is a name every JavaScript object has; a record without it would read JavaScript's own; pick another name`,
    )
  }
  const field = (where: string, value: unknown) => {
    if (typeof value !== 'string' || !fields.has(value))
      fail(
        where,
        `no field ${shownValue(value)} in the schema of ${name} (fields: ${[...fields].join(', ')})`,
      )
  }
  const id = shape.id
  if (!id || !id.safeParse(1).success || id.safeParse(1.5).success || id.safeParse('1').success)
    fail(at('schema.id'), 'must be an integer field, e.g. id: readOnly(idSchema)')
  const unsendable = notJsonType(schema)
  if (unsendable?.type === 'transform' || unsendable?.type === 'coercion')
    fail(
      at(`schema.${unsendable.path}`),
      `is a ${unsendable.type}: records are kept as JSON and read back through this schema, so a field must take the value it gives (seeded and written records would differ); derive values in rules.create and rules.update instead`,
    )
  if (unsendable)
    fail(
      at(`schema.${unsendable.path}`),
      `is a ${unsendable.type}, which JSON cannot carry (records are sent and kept as JSON); use ${JSON_INSTEAD[unsendable.type] ?? 'a JSON type'}`,
    )
  if (refined(schema))
    fail(
      at('schema'),
      'has a refinement of the whole object (.refine, .superRefine, .check): request bodies are derived from its fields, which zod cannot do with one; check across fields in rules.check (data documents) and rules.create / rules.update (writes)',
    )

  if (definition.unique !== undefined) {
    if (!isObject(definition.unique)) fail(at('unique'), 'must be an object of field: { conflict }')
    for (const [key, unique] of Object.entries(definition.unique)) {
      field(at(`unique.${key}`), key)
      if (!isObject(unique)) fail(at(`unique.${key}`), 'must be { conflict, ignoreCase? }')
      context.code((unique as Record<string, unknown>).conflict, at(`unique.${key}.conflict`))
      if (unique.ignoreCase !== undefined && typeof unique.ignoreCase !== 'boolean')
        fail(
          at(`unique.${key}.ignoreCase`),
          `must be true or false, got ${shownValue(unique.ignoreCase)}`,
        )
      const kind = scalarKind(shape[key]!)
      if (kind === null)
        fail(
          at(`unique.${key}`),
          'a unique field must hold a string, a number or an enum value (optional or nullable is fine: records without one do not collide)',
        )
      if (unique.ignoreCase === true && kind !== 'string')
        fail(at(`unique.${key}.ignoreCase`), `${key} holds no text, so it has no case to ignore`)
    }
  }

  const list = definition.list as unknown
  if (!isObject(list))
    fail(at('list'), 'must be { sortable: [fields], keyword?: (record) => text }')
  if (!Array.isArray(list.sortable)) fail(at('list.sortable'), 'must be a list of field names')
  list.sortable.forEach((sortable, position) => field(at(`list.sortable[${position}]`), sortable))
  if (list.keyword !== undefined && typeof list.keyword !== 'function')
    fail(at('list.keyword'), 'must be a function from a record to the text keyword searches')

  if (definition.permissions !== undefined) {
    if (!isObject(definition.permissions))
      fail(at('permissions'), 'must be an object of action: permission')
    for (const [action, permission] of Object.entries(definition.permissions)) {
      assertAction(at(`permissions.${action}`), action)
      if (!PERMISSIONS.includes(permission as Permission))
        fail(
          at(`permissions.${action}`),
          `must be ${listed(PERMISSIONS)}, got ${shownValue(permission)}`,
        )
      // `own` compares the path's account id with the caller's: only the accounts' own routes have one.
      if (permission === 'own' && name !== context.accounts)
        fail(
          at(`permissions.${action}`),
          `own lets a member reach their own ${context.accounts} record; no path of ${name} names one. For records that belong to an account, nest them: links: [{ resource: ${context.accounts}, field, nested: 'own' }]`,
        )
    }
  }

  for (const key of ['adminOnly', 'links'] as const)
    if (definition[key] !== undefined && !Array.isArray(definition[key]))
      fail(at(key), `must be a list, got ${typeof definition[key]}`)
  const readOnly = new Set([...ALWAYS_READ_ONLY, ...readOnlyFields(schema)])
  ;(definition.adminOnly ?? []).forEach((adminOnly: unknown, position: number) => {
    field(at(`adminOnly[${position}]`), adminOnly)
    if (readOnly.has(adminOnly as string))
      fail(
        at(`adminOnly[${position}]`),
        `${String(adminOnly)} is read-only: no one sets it, so it cannot be admin-only`,
      )
  })

  if (definition.defaults !== undefined) {
    if (!isObject(definition.defaults)) fail(at('defaults'), 'must be an object of field: value')
    for (const [key, value] of Object.entries(definition.defaults)) {
      field(at(`defaults.${key}`), key)
      if (ALWAYS_READ_ONLY.includes(key))
        fail(at(`defaults.${key}`), `${key} is read-only: the sandbox sets it`)
      const checked = safeParseReporting(shape[key]!, value)
      if (!checked.success)
        fail(
          at('defaults'),
          describeIssue({
            ...checked.error.issues[0]!,
            path: [key, ...checked.error.issues[0]!.path],
          }),
        )
    }
  }

  if (definition.bodies !== undefined) {
    if (!isObject(definition.bodies))
      fail(at('bodies'), `must be an object of ${listed(BODY_KINDS)}`)
    for (const [kind, body] of Object.entries(definition.bodies)) {
      if (!BODY_KINDS.includes(kind))
        fail(at(`bodies.${kind}`), `is not a body; bodies are ${listed(BODY_KINDS)}`)
      if (body !== undefined && !(body instanceof z.ZodObject))
        fail(at(`bodies.${kind}`), 'must be a zod object schema')
      // A field no record has is dropped, unless the rule of its action takes it.
      const rule = kind === 'create' || kind === 'nestedCreate' ? 'create' : 'update'
      if (body && !(definition.rules as Record<string, unknown> | undefined)?.[rule])
        for (const key of Object.keys((body as z.ZodObject).shape))
          if (!fields.has(key))
            fail(
              at(`bodies.${kind}.${key}`),
              `is no field of ${name}, and no rules.${rule} takes it`,
            )
    }
    // The bodies not given are derived from those given (a patch from the replace body).
    const { replace, patch, create, nestedCreate } = definition.bodies as Record<string, z.ZodType>
    if (replace && !patch && refined(replace))
      fail(
        at('bodies.patch'),
        'is needed: bodies.replace has a refinement of the whole object, so no patch body can be derived from it',
      )
    if (create && !nestedCreate && refined(create) && nestedField(definition) !== undefined)
      fail(
        at('bodies.nestedCreate'),
        'is needed: bodies.create has a refinement of the whole object, so no nested create body can be derived from it',
      )
  }

  // Without rules.create, the create body alone makes a record: it must give every field a
  // record needs (a read-only one no client sends, a body of the definition's own that leaves
  // one out), else each create would be refused by the schema, or store a record without it.
  if (definition.rules?.create === undefined) {
    const create = (definition.bodies as { create?: z.ZodObject } | undefined)?.create
    const body = create?.shape as Record<string, z.ZodType> | undefined
    const nestedOwner = nestedField(definition)
    for (const [key, own] of Object.entries(shape)) {
      if (ALWAYS_READ_ONLY.includes(key) || key === nestedOwner) continue
      if (own.safeParse(undefined).success || Object.hasOwn(definition.defaults ?? {}, key))
        continue
      if (body) {
        if (body[key] && !body[key].safeParse(undefined).success) continue
        if (body[key]?.safeParse(undefined).success && defOf(body[key]).type === 'default') continue
        fail(
          at('bodies.create'),
          `${body[key] ? 'makes' : 'leaves out'} ${key}${body[key] ? ' optional' : ''}, which every ${definition.singular} needs: require it in the body, give it a default (defaults.${key}), or set it in rules.create`,
        )
      } else if (readOnly.has(key))
        fail(
          at(`schema.${key}`),
          `is read-only and every ${definition.singular} needs it, so no create could make one: make it optional, or set it in rules.create`,
        )
    }
  }

  const nested: string[] = []
  ;(definition.links ?? []).forEach((link: unknown, position: number) => {
    const where = at(`links[${position}]`)
    if (!isObject(link)) fail(where, 'must be { resource, field } or { resource, ids(record) }')
    const target = link.resource
    if (
      (typeof target !== 'string' && !isObject(target)) ||
      !context.names.has(nameOf(target as AnyResourceDefinition | string))
    )
      fail(
        `${where}.resource`,
        `points at ${shownValue(typeof target === 'string' ? target : (target as { name?: unknown } | undefined)?.name)}, which is not a resource of this API (${listed([...context.names])})`,
      )
    if (link.field !== undefined) {
      if (link.ids !== undefined) fail(where, 'has both a field and ids(record): give one')
      field(`${where}.field`, link.field)
      if (link.field === 'id')
        fail(
          `${where}.field`,
          "id is this record's own id; a link's field holds the id of the record it points at (e.g. userId)",
        )
      if (!holdsIds(shape[link.field as string]!))
        fail(
          `${where}.field`,
          `${String(link.field)} must hold an id, an integer (e.g. z.int().positive()), to point at a record`,
        )
    } else if (typeof link.ids !== 'function')
      fail(where, 'needs a field (the id it holds) or ids(record)')
    if (link.nested !== undefined) {
      if (!PERMISSIONS.includes(link.nested as Permission))
        fail(`${where}.nested`, `must be ${listed(PERMISSIONS)}, got ${shownValue(link.nested)}`)
      if (link.field === undefined) fail(`${where}.nested`, 'a nested link needs a field')
      if (link.nested === 'own' && nameOf(target as string) !== context.accounts)
        fail(`${where}.nested`, `own needs the link to point at the accounts (${context.accounts})`)
      nested.push(String(link.field))
    }
  })
  if (nested.length > 1) fail(at('links'), 'at most one link may be nested')

  if (definition.rules !== undefined) {
    if (!isObject(definition.rules)) fail(at('rules'), 'must be an object of rule functions')
    for (const [rule, value] of Object.entries(definition.rules)) {
      if (!['references', 'create', 'update', 'remove', 'check'].includes(rule))
        fail(
          at(`rules.${rule}`),
          'is not a rule; rules are references, create, update, remove and check',
        )
      if (typeof value !== 'function') fail(at(`rules.${rule}`), 'must be a function')
      if (Object.prototype.toString.call(value).startsWith('[object Async'))
        fail(
          at(`rules.${rule}`),
          'must not be async: a rule runs inside one write, and a promise is no answer',
        )
    }
  }

  if (definition.errors !== undefined) {
    for (const [action, list] of Object.entries(definition.errors)) {
      if (action !== 'create' && action !== 'update')
        fail(at(`errors.${action}`), 'must be create or update')
      if (!Array.isArray(list)) fail(at(`errors.${action}`), 'must be a list of codes')
      list.forEach((spec, position) => context.code(spec, at(`errors.${action}[${position}]`)))
    }
  }

  if (definition.docs !== undefined) {
    const { docs } = definition as { docs: unknown }
    if (!isObject(docs)) fail(at('docs'), 'must be { description?, operations? }')
    for (const key of Object.keys(docs))
      if (key !== 'description' && key !== 'operations')
        fail(at(`docs.${key}`), 'is not part of docs (description, operations)')
    if (docs.description !== undefined && typeof docs.description !== 'string')
      fail(at('docs.description'), 'must be a text')
    if (docs.operations !== undefined) {
      if (!isObject(docs.operations))
        fail(at('docs.operations'), 'must be an object of action: words')
      for (const [action, words] of Object.entries(docs.operations)) {
        assertAction(at(`docs.operations.${action}`), action)
        if (!isObject(words))
          fail(at(`docs.operations.${action}`), 'must be { summary?, description? }')
        for (const [key, text] of Object.entries(words))
          if ((key !== 'summary' && key !== 'description') || typeof text !== 'string')
            fail(
              at(`docs.operations.${action}.${key}`),
              'only a summary and a description, each a text, are taken',
            )
      }
    }
  }

  const seed = definition.seed as unknown
  if (!isObject(seed)) fail(at('seed'), 'must be { count, generate(context) }')
  // max, then min within it, then count within both (`seed.max` and `seed.min` when given).
  const bound = (key: string, value: unknown, least = 0, most = MAX_RECORDS) => {
    if (!Number.isSafeInteger(value) || (value as number) < least || (value as number) > most)
      fail(at(`seed.${key}`), `${mustBeInteger(least, most)}, got ${shownValue(value)}`)
  }
  if (seed.max !== undefined) bound('max', seed.max)
  const max = (seed.max as number | undefined) ?? MAX_RECORDS
  if (seed.min !== undefined) bound('min', seed.min, 0, max)
  bound('count', seed.count, (seed.min as number | undefined) ?? 0, max)
  if (typeof seed.generate !== 'function')
    fail(at('seed.generate'), 'must be a function returning the records')
  if (seed.needs !== undefined) {
    const needs = seed.needs as unknown
    const named =
      typeof needs === 'string' ||
      (typeof needs === 'object' &&
        needs !== null &&
        typeof (needs as { name?: unknown }).name === 'string')
        ? nameOf(needs as string)
        : undefined
    if (named === undefined)
      fail(
        at('seed.needs'),
        `must be a resource (its name, or its definition), got ${shownValue(needs)}`,
      )
    if (!context.names.has(named))
      fail(at('seed.needs'), `${shownValue(named)} is not a resource of this API`)
  }
}

const BODY_KINDS = ['create', 'replace', 'patch', 'nestedCreate']

/** Most records a resource may have (its `seed.max` at most, and its default). */
export const MAX_RECORDS = 1_000_000

/** The field of a definition's nested link, if it has one. */
function nestedField(definition: AnyResourceDefinition): string | undefined {
  const links = (definition.links ?? []) as ReadonlyArray<{ nested?: unknown; field?: string }>
  return links.find((link) => link.nested !== undefined)?.field
}

/** Checks an API's own fields (its resources are checked one by one). */
const API_KEYS = new Set([
  'title',
  'description',
  'resources',
  'accounts',
  'codes',
  'fakerLocale',
  'scenarios',
])
const ACCOUNTS_KEYS = new Set(['resource', 'login', 'password', 'role', 'tokens'])

export function checkApi(api: ApiDefinition): void {
  if (!isObject(api)) fail('api', 'must be an API definition (defineApi({ … }))')
  // Its scenarios are checked when a sandbox is made (state/scenarios.ts): here only their list.
  if (api.scenarios !== undefined && !Array.isArray(api.scenarios))
    fail('api.scenarios', 'must be a list of scenarios (defineScenario)')
  if ((api.scenarios?.length ?? 0) > MAX_SCENARIOS)
    fail('api.scenarios', `must hold at most ${MAX_SCENARIOS.toLocaleString('en')} scenarios`)
  for (const key of Object.keys(api))
    if (!API_KEYS.has(key))
      fail(`api.${key}`, `is not part of an API definition (${listed([...API_KEYS])})`)
  if (isObject(api.accounts))
    for (const key of Object.keys(api.accounts))
      if (!ACCOUNTS_KEYS.has(key))
        fail(`api.accounts.${key}`, `is not part of accounts (${listed([...ACCOUNTS_KEYS])})`)
  if (typeof api.title !== 'string' || api.title.trim() === '')
    fail('api.title', 'must be a title in words')
  if (!Array.isArray(api.resources) || api.resources.length === 0)
    fail('api.resources', 'must list at least one resource definition')
  if (api.resources.length > MAX_RESOURCES)
    fail('api.resources', `must list at most ${MAX_RESOURCES.toLocaleString('en')} resources`)
  if (!isObject(api.accounts)) fail('api.accounts', 'must say who signs in: { resource, password }')
  if (typeof api.accounts.password !== 'string' || api.accounts.password === '')
    fail('api.accounts.password', 'must be a password (a text, not empty)')
  for (const [position, token] of (api.accounts.tokens ?? []).entries()) {
    if (
      !isObject(token) ||
      typeof token.token !== 'string' ||
      !/^[\x21-\x7e]{1,200}$/.test(token.token)
    )
      fail(
        `api.accounts.tokens[${position}].token`,
        'must be 1-200 printable characters without spaces',
      )
    if (!Number.isSafeInteger(token.userId) || token.userId < 1)
      fail(`api.accounts.tokens[${position}].userId`, 'must be an account id (a positive integer)')
    const first = (api.accounts.tokens ?? []).findIndex((other) => other.token === token.token)
    if (first < position)
      fail(
        `api.accounts.tokens[${position}].token`,
        `tokens[${first}] is ${shownValue(token.token)} already; each fixed token stands for one account`,
      )
  }
  // A number means one thing: the generic codes' and each of the API's own are all different.
  const numbers = new Map<number, string>(
    Object.entries(codes).map(([key, definition]) => [definition.code, key]),
  )
  for (const [key, code] of Object.entries(api.codes ?? {})) {
    if (Object.hasOwn(codes, key) || key in Object.prototype)
      fail(
        `api.codes.${key}`,
        `'${key}' is ${Object.hasOwn(codes, key) ? 'a generic code already' : 'a name every JavaScript object has'}; pick another name`,
      )
    const { code: number } = codeResolver({ ...api, codes: {} })(code, `api.codes.${key}`)
    const other = numbers.get(number)
    if (other !== undefined)
      fail(`api.codes.${key}.code`, `${number} is '${other}' already; pick another number`)
    numbers.set(number, key)
  }
}
