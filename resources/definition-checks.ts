import * as z from 'zod'
import type { CodeDefinition } from '../contract/codes.js'
import { codes } from '../contract/codes.js'
import { describeIssue } from '../contract/issues.js'
import { readOnlyFields } from '../contract/registry.js'
import type { ApiDefinition } from './api.js'
import type { Action, AnyResourceDefinition, Permission } from './define.js'
import { nameOf } from './define.js'

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
      const known = (codes as Record<string, CodeDefinition>)[spec] ?? own[spec]
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
      fail(
        `${where}.code`,
        `must be an integer from 10000 to 99999, got ${JSON.stringify(spec.code)}`,
      )
    if (typeof spec.message !== 'string' || spec.message.trim() === '')
      fail(`${where}.message`, 'must be a message in words')
    const taken = Object.entries({ ...codes, ...own }).find(
      ([, definition]) => definition.code === spec.code,
    )
    if (taken && (taken[1].message !== spec.message || taken[1].status !== (spec.status ?? 409)))
      fail(
        `${where}.code`,
        `${String(spec.code)} is ${taken[0]} ('${taken[1].message}') already; give that code's name, or another number`,
      )
    const status = spec.status ?? 409
    if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599)
      fail(
        `${where}.status`,
        `must be an HTTP error status (400-599), got ${JSON.stringify(spec.status)}`,
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
 * throws a TypeError naming the resource and the field. Returns the schema's field names.
 */
/** What a record field could be instead of a type JSON has no place for. */
const JSON_INSTEAD: Record<string, string> = {
  bigint: 'z.int() (or a string of digits)',
  date: 'z.iso.datetime() (an ISO 8601 string)',
  map: 'z.record()',
  set: 'z.array()',
  nan: 'z.number()',
}

/** zod's types whose values JSON.stringify cannot send as given. */
const NOT_JSON = new Set([
  'bigint',
  'symbol',
  'date',
  'map',
  'set',
  'nan',
  'promise',
  'function',
  'void',
  'file',
])

/**
 * The first field (a path, e.g. `price.amount`) of a record schema whose values JSON cannot
 * carry, as its output is stored and answered, or null. Checked when a sandbox is made: such a
 * field would fail only when the first record is sent (a 500).
 */
function notJsonType(schema: z.ZodType): { path: string; type: string } | null {
  const seen = new Set<unknown>()
  const stack: Array<[z.ZodType, string]> = [[schema, '']]
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    if (seen.has(current)) continue
    seen.add(current)
    const def = (
      current as unknown as { _zod: { def: Record<string, unknown> & { type: string } } }
    )._zod.def
    if (NOT_JSON.has(def.type)) return { path: path.slice(1), type: def.type }
    const inner = (child: unknown, suffix = '') =>
      child && stack.push([child as z.ZodType, `${path}${suffix}`])
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape as Record<string, unknown>))
          inner(child, `.${key}`)
        break
      case 'array':
        inner(def.element, '[]')
        break
      case 'record':
        inner(def.valueType, '.*')
        break
      case 'tuple':
        for (const [index, child] of (def.items as unknown[]).entries()) inner(child, `[${index}]`)
        inner(def.rest, '[]')
        break
      case 'union':
        for (const option of def.options as unknown[]) inner(option)
        break
      case 'intersection':
        inner(def.left)
        inner(def.right)
        break
      case 'pipe':
        // What is stored is the pipe's output.
        inner(def.out)
        break
      default:
        // optional, nullable, default, prefault, catch, readonly, nonoptional.
        inner(def.innerType)
    }
  }
  return null
}

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
    fail(`${place}.name`, `must be a path segment like "categories", got ${JSON.stringify(name)}`)
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
      `must be one record's name like "category", got ${JSON.stringify(definition.singular)}`,
    )
  const { schema } = definition
  if (!(schema instanceof z.ZodObject))
    fail(at('schema'), 'must be a zod object schema: z.object({ … })')
  const shape = schema.shape as Record<string, z.ZodType>
  const fields = new Set(Object.keys(shape))
  const field = (where: string, value: unknown) => {
    if (typeof value !== 'string' || !fields.has(value))
      fail(
        where,
        `no field ${JSON.stringify(value)} in the schema of ${name} (fields: ${[...fields].join(', ')})`,
      )
  }
  const id = shape.id
  if (!id || !id.safeParse(1).success || id.safeParse(1.5).success || id.safeParse('1').success)
    fail(at('schema.id'), 'must be an integer field, e.g. id: readOnly(idSchema)')
  const unsendable = notJsonType(schema)
  if (unsendable)
    fail(
      at(`schema.${unsendable.path}`),
      `is a ${unsendable.type}, which JSON cannot carry (records are sent and kept as JSON); use ${JSON_INSTEAD[unsendable.type] ?? 'a JSON type'}`,
    )

  if (definition.unique !== undefined) {
    if (!isObject(definition.unique)) fail(at('unique'), 'must be an object of field: { conflict }')
    for (const [key, unique] of Object.entries(definition.unique)) {
      field(at(`unique.${key}`), key)
      if (!isObject(unique)) fail(at(`unique.${key}`), 'must be { conflict, ignoreCase? }')
      context.code((unique as Record<string, unknown>).conflict, at(`unique.${key}.conflict`))
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
      if (!ACTIONS.includes(action as Action))
        fail(at(`permissions.${action}`), `is not an action; actions are ${listed(ACTIONS)}`)
      if (!PERMISSIONS.includes(permission as Permission))
        fail(
          at(`permissions.${action}`),
          `must be ${listed(PERMISSIONS)}, got ${JSON.stringify(permission)}`,
        )
      // `own` compares the path's account id with the caller's: only the accounts' own routes have one.
      if (permission === 'own' && name !== context.accounts)
        fail(
          at(`permissions.${action}`),
          `own lets a member reach their own ${context.accounts} record; no path of ${name} names one. For records that belong to an account, nest them: links: [{ resource: ${context.accounts}, field, nested: 'own' }]`,
        )
    }
  }

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
      const checked = shape[key]!.safeParse(value, { reportInput: true })
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
    for (const [kind, body] of Object.entries(definition.bodies)) {
      if (body !== undefined && !(body instanceof z.ZodObject))
        fail(at(`bodies.${kind}`), 'must be a zod object schema')
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
        `points at ${JSON.stringify(typeof target === 'string' ? target : (target as { name?: unknown } | undefined)?.name)}, which is not a resource of this API (${listed([...context.names])})`,
      )
    if (link.field !== undefined) field(`${where}.field`, link.field)
    else if (typeof link.ids !== 'function')
      fail(where, 'needs a field (the id it holds) or ids(record)')
    if (link.nested !== undefined) {
      if (!PERMISSIONS.includes(link.nested as Permission))
        fail(
          `${where}.nested`,
          `must be ${listed(PERMISSIONS)}, got ${JSON.stringify(link.nested)}`,
        )
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

  const seed = definition.seed as unknown
  if (!isObject(seed)) fail(at('seed'), 'must be { count, generate(context) }')
  const bound = (key: string, value: unknown) => {
    if (!Number.isSafeInteger(value) || (value as number) < 0)
      fail(at(`seed.${key}`), `must be an integer of at least 0, got ${JSON.stringify(value)}`)
  }
  bound('count', seed.count)
  if (seed.min !== undefined) bound('min', seed.min)
  if (seed.max !== undefined) bound('max', seed.max)
  if (typeof seed.generate !== 'function')
    fail(at('seed.generate'), 'must be a function returning the records')
  if (seed.needs !== undefined && !context.names.has(nameOf(seed.needs as string)))
    fail(
      at('seed.needs'),
      `${JSON.stringify(nameOf(seed.needs as string))} is not a resource of this API`,
    )
}

/** Checks an API's own fields (its resources are checked one by one). */
const API_KEYS = new Set(['title', 'description', 'resources', 'accounts', 'codes', 'fakerLocale'])
const ACCOUNTS_KEYS = new Set(['resource', 'login', 'password', 'role', 'tokens'])

export function checkApi(api: ApiDefinition): void {
  if (!isObject(api)) fail('api', 'must be an API definition (defineApi({ … }))')
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
  if (!isObject(api.accounts)) fail('api.accounts', 'must say who signs in: { resource, password }')
  if (typeof api.accounts.password !== 'string') fail('api.accounts.password', 'must be a string')
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
        `tokens[${first}] is ${JSON.stringify(token.token)} already; each fixed token stands for one account`,
      )
  }
  // A number means one thing: the generic codes' and each of the API's own are all different.
  const numbers = new Map<number, string>(
    Object.entries(codes).map(([key, definition]) => [definition.code, key]),
  )
  for (const [key, code] of Object.entries(api.codes ?? {})) {
    if (key in codes)
      fail(`api.codes.${key}`, `${key} is a generic code already; pick another name`)
    const { code: number } = codeResolver({ ...api, codes: {} })(code, `api.codes.${key}`)
    const other = numbers.get(number)
    if (other !== undefined)
      fail(`api.codes.${key}.code`, `${number} is ${other} already; pick another number`)
    numbers.set(number, key)
  }
}
