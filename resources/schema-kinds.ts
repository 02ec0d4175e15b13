import type * as z from 'zod'

/**
 * What a definition's zod schemas are made of (JSON types or not, open, ids, scalars), read from
 * zod's own definitions, for the definition checks and the catalog.
 * @module
 */

/** What a record field could be instead of a type JSON has no place for. */
export const JSON_INSTEAD: Record<string, string> = {
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
export function notJsonType(schema: z.ZodType): { path: string; type: string } | null {
  return findType(schema, (def) =>
    NOT_JSON.has(def.type)
      ? def.type
      : // A stored record is read back through the same schema (a data file, PUT
        // /__sandbox/db): a field must take what it gives. A transform or a coercion gives
        // something else.
        def.type === 'transform'
        ? 'transform'
        : def.coerce === true
          ? 'coercion'
          : null,
  )
}

/** zod's types that take values of any kind, JSON or not (a lazy one cannot be looked into). */
const OPEN = new Set(['unknown', 'any', 'custom', 'lazy'])

/** The fields of a record schema that take values of any kind: their seeded values are checked. */
export function openFields(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => findType(field, (def) => (OPEN.has(def.type) ? def.type : null)))
    .map(([key]) => key)
}

/**
 * The first key of an object in a schema, nested ones too (`meta.toString`), that every
 * JavaScript object has, with its path; or null.
 */
export function inheritedKey(schema: z.ZodType): string | null {
  const found = findType(schema, (def) =>
    def.type === 'object'
      ? (Object.keys(def.shape as object).find((key) => key in Object.prototype) ?? null)
      : null,
  )
  return found && (found.path === '' ? found.type : `${found.path}.${found.type}`)
}

/** The first type in a schema (walked through objects, lists, unions, wrappers) `match` names. */
function findType(
  schema: z.ZodType,
  match: (def: Record<string, unknown> & { type: string }) => string | null,
): { path: string; type: string } | null {
  const seen = new Set<unknown>()
  const stack: Array<[z.ZodType, string]> = [[schema, '']]
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    if (seen.has(current)) continue
    seen.add(current)
    const def = (
      current as unknown as { _zod: { def: Record<string, unknown> & { type: string } } }
    )._zod.def
    const found = match(def)
    if (found) return { path: path.slice(1), type: found }
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
        inner(def.in)
        inner(def.out)
        break
      default:
        // optional, nullable, default, prefault, catch, readonly, nonoptional.
        inner(def.innerType)
    }
  }
  return null
}

type Def = Record<string, unknown> & { type: string; checks?: unknown[] }
/** A zod schema's definition (its type, inner types, checks). */
export const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def

/** Whether an object schema has checks of its own (a refinement of the whole object). */
export function refined(schema: z.ZodType): boolean {
  return (defOf(schema).checks?.length ?? 0) > 0
}

/** The schema under optional, nullable, default and the like. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema
  for (;;) {
    const def = defOf(current)
    if (def.innerType) current = def.innerType as z.ZodType
    else return current
  }
}

/**
 * What a unique field holds: 'string', 'number' (numbers, enums or literals of either),
 * 'mixed' (a union of both), or null (anything else).
 */
export function scalarKind(schema: z.ZodType): 'string' | 'number' | 'mixed' | null {
  const def = defOf(unwrapped(schema))
  if (def.type === 'union') {
    const kinds = new Set((def.options as z.ZodType[]).map(scalarKind))
    if (kinds.has(null)) return null
    return kinds.size === 1 ? [...kinds][0]! : 'mixed'
  }
  if (def.type === 'string') return 'string'
  if (def.type === 'number' || def.type === 'int') return 'number'
  if (def.type === 'enum') {
    const values = Object.values(def.entries as Record<string, unknown>)
    if (values.every((value) => typeof value === 'string')) return 'string'
    if (values.every((value) => typeof value === 'number')) return 'number'
  }
  if (def.type === 'literal') {
    const values = def.values as unknown[]
    if (values.every((value) => typeof value === 'string')) return 'string'
    if (values.every((value) => typeof value === 'number')) return 'number'
  }
  return null
}

/** Whether a field holds record ids: an integer (possibly optional or nullable). */
export function holdsIds(schema: z.ZodType): boolean {
  return (
    scalarKind(schema) === 'number' &&
    !schema.safeParse(1.5).success &&
    !schema.safeParse('1').success
  )
}
