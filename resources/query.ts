import * as z from 'zod'
import {
  clip,
  integerProblem,
  invalidParameter,
  PAST_EVERY_ID,
  plainId,
  plainInteger,
  rejectUnknown,
  single,
} from '../contract/params.js'
import type { ListQuery, ListSpec } from './list.js'
import { once } from '../contract/once.js'

export const PAGE_SIZE_DEFAULT = 20
export const PAGE_SIZE_MAX = 100
export const KEYWORD_MAX_LENGTH = 100

/**
 * One query parameter: the zod schema of its value (which validates it and is its OpenAPI
 * schema), how its text becomes a value, and the 400 message for a text that is not one.
 */
export interface QueryParameter {
  schema: z.ZodType
  read(raw: string): unknown
  /**
   * The schema's verdict on a value `read` gave, without zod: for the parameters every list
   * read carries (page, pageSize, sort, order), made from the same bounds or options as the
   * schema, so a request skips a zod parse per parameter. The schema decides when absent.
   */
  accepts?(value: unknown): boolean
  problem(raw: string): string
  description?: string
  /** `fields` is a comma-separated list: OpenAPI `style: form, explode: false`. */
  list?: boolean
  /** Refused, not documented (a parameter a resource lacks, answered 400 rather than ignored). */
  hidden?: boolean
}

/** The parameters of one route's query, by name, in the order they are checked and documented. */
export type QuerySchema = Readonly<Record<string, QueryParameter>>

/** An integer in [min, max] written plainly ({@link plainInteger}). */
export function integerQuery(
  name: string,
  min: number,
  max: number,
  fallback?: number,
): QueryParameter {
  const value = z.int().min(min).max(max)
  return {
    schema: fallback === undefined ? value : value.default(fallback),
    read: (raw) => {
      const value = plainInteger(raw)
      return Number.isNaN(value) ? raw : value
    },
    accepts: (value) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max,
    problem: (raw) => integerProblem(name, raw, min, max),
  }
}

/**
 * An id to filter by, read as a path's id is ({@link plainId}): one of more digits than a number
 * holds is one no record has, and the page is empty. Documented as the positive integers,
 * unbounded (a zod integer is a safe one, and its JSON Schema says 2^53 − 1).
 */
function idQuery(name: string): QueryParameter {
  const integer = integerQuery(name, 1, Number.MAX_SAFE_INTEGER)
  return {
    ...integer,
    schema: z.number().min(1).refine(Number.isInteger).meta({ type: 'integer' }),
    read: (raw) => (plainId(raw) === PAST_EVERY_ID ? PAST_EVERY_ID : integer.read(raw)),
    accepts: (value) => value === PAST_EVERY_ID || integer.accepts!(value),
  }
}

/** One of `options`. */
export function enumQuery(
  name: string,
  options: readonly [string, ...string[]],
  fallback?: string,
  description?: string,
): QueryParameter {
  const value = z.enum(options)
  return {
    schema: fallback === undefined ? value : value.default(fallback),
    read: (raw) => raw,
    accepts: (value) => options.includes(value as string),
    problem: (raw) => `${name} must be one of ${options.join(', ')}, got '${clip(raw)}'`,
    ...(description ? { description } : {}),
  }
}

/** Characters as the length rule counts them (code points: an emoji is one), without copying. */
function characters(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++, count++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
  }
  return count
}

/** The names of a comma-separated list, trimmed, each once (no array of every piece is made). */
function commaNames(raw: string): Set<string> {
  const names = new Set<string>()
  for (let start = 0; start <= raw.length;) {
    const comma = raw.indexOf(',', start)
    const end = comma < 0 ? raw.length : comma
    names.add(raw.slice(start, end).trim())
    start = end + 1
  }
  return names
}

/** `fields`: a comma-separated list of the record's fields. */
function fieldsParameter(fields: readonly string[]): QueryParameter {
  return {
    schema: z.array(z.enum(fields as [string, ...string[]])).min(1),
    // Each name once: `id,id,…` a million times would be picked a million times a record.
    read: (raw) => [...commaNames(raw)],
    // Stops at the first name that is no field (zod made an issue of each: a million commas held
    // an in-process sandbox 1.4 s; over HTTP a URL is at most 16 KiB).
    accepts: (value) =>
      Array.isArray(value) && value.length > 0 && value.every((name) => fields.includes(name)),
    problem: (raw) => {
      // The unknown names, only as many as the message shows.
      let unknown = ''
      for (const name of commaNames(raw))
        if (!fields.includes(name) && (unknown += `${unknown ? ',' : ''}${name}`).length > 60) break
      return `fields must be a comma-separated list of ${fields.join(', ')}; unknown: '${clip(unknown)}'`
    },
    description: `Comma-separated fields to return (${fields.join(', ')}); the records then carry exactly these fields.`,
    list: true,
  }
}

/** `page` (≥ 1, default 1) and `pageSize` (1–100, default 20) of CONTRACT B3. */
export const pagingSchema = once(
  () =>
    ({
      page: integerQuery('page', 1, Number.MAX_SAFE_INTEGER, 1),
      pageSize: integerQuery('pageSize', 1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT),
    }) satisfies QuerySchema,
)

/** The query of a collection read (CONTRACT B3), generated from its list spec. */
export function listQuerySchema(spec: {
  fields: readonly string[]
  sortable: readonly string[]
  statuses: readonly string[]
  keywordText?: unknown
  idFilters?: Readonly<Record<string, string>> | undefined
}): QuerySchema {
  const [first, ...statuses] = spec.statuses
  return {
    ...pagingSchema(),
    ...(first === undefined ? {} : { status: enumQuery('status', [first, ...statuses]) }),
    sort: enumQuery(
      'sort',
      spec.sortable as [string, ...string[]],
      'id',
      'Stable; ties are broken by id ascending; text sorts case-insensitively.',
    ),
    order: enumQuery('order', ['asc', 'desc'], 'asc'),
    fields: fieldsParameter(spec.fields),
    keyword: spec.keywordText
      ? {
          schema: z.string().min(1).max(KEYWORD_MAX_LENGTH),
          read: (raw) => raw,
          problem: (raw) =>
            `keyword must be 1 to ${KEYWORD_MAX_LENGTH} characters, got ${characters(raw)}`,
          description: 'Case-insensitive substring search.',
        }
      : {
          // A resource without keyword text: a search is refused rather than ignored (a client
          // would otherwise take the whole list for the matches).
          schema: z.never(),
          read: (raw) => raw,
          accepts: () => false,
          problem: () => 'keyword is not available here: this resource defines no text to search',
          hidden: true,
        },
    ...Object.fromEntries(
      Object.keys(spec.idFilters ?? {}).map((name) => [
        name,
        {
          ...idQuery(name),
          description: 'Only records of this owner.',
        },
      ]),
    ),
  }
}

/** The query of a single-record read: only `fields`. */
export function recordQuerySchema(fields: readonly string[]): QuerySchema {
  return { fields: fieldsParameter(fields) }
}

const defaults = new WeakMap<QuerySchema, Readonly<Record<string, unknown>>>()

/** The values of a query nobody gave: each parameter's default, computed once. */
function defaultsOf(schema: QuerySchema): Readonly<Record<string, unknown>> {
  let values = defaults.get(schema)
  if (!values) {
    values = Object.fromEntries(
      Object.entries(schema).flatMap(([name, parameter]) =>
        parameter.schema instanceof z.ZodDefault ? [[name, parameter.schema.parse(undefined)]] : [],
      ),
    )
    defaults.set(schema, values)
  }
  return values
}

const parameterNames = new WeakMap<QuerySchema, readonly string[]>()

/** The parameters of a schema, in order, listed once. */
function namesOf(schema: QuerySchema): readonly string[] {
  let list = parameterNames.get(schema)
  if (!list) parameterNames.set(schema, (list = Object.keys(schema)))
  return list
}

/**
 * Validates a query against its schema: a parameter given twice, a value the schema refuses
 * and (strict mode) a parameter it does not know are each a 400 naming the parameter.
 * Returns the values with their defaults. Each given parameter is parsed on its own: a query
 * with none (most reads) costs no parse at all.
 */
export function parseQuery(
  schema: QuerySchema,
  params: URLSearchParams,
  strict: boolean,
): Record<string, unknown> {
  const values = { ...defaultsOf(schema) }
  if (params.size === 0) return values
  const names = namesOf(schema)
  if (strict) rejectUnknown(params, names)
  for (const name of names) {
    if (!params.has(name)) continue
    const raw = single(params, name)!
    const parameter = schema[name]!
    const value = parameter.read(raw)
    if (parameter.accepts) {
      if (!parameter.accepts(value)) throw invalidParameter(parameter.problem(raw))
      values[name] = value
      continue
    }
    const result = parameter.schema.safeParse(value)
    if (!result.success) throw invalidParameter(parameter.problem(raw))
    values[name] = result.data
  }
  return values
}

/** Parses a collection query into what {@link runListQuery} runs. */
export function parseListQuery<T extends { id: number }>(
  params: URLSearchParams,
  spec: ListSpec<T>,
  strict: boolean,
  schema = listQuerySchema(spec),
): ListQuery<T> {
  const values = parseQuery(schema, params, strict)
  const fields = values.fields as ListQuery<T>['fields'] | undefined
  const keyword = values.keyword as string | undefined
  const idFilters: ListQuery<T>['idFilters'] = []
  for (const [name, field] of Object.entries(spec.idFilters ?? {})) {
    if (values[name] !== undefined) idFilters.push([field, values[name] as number])
  }
  return {
    page: values.page as number,
    pageSize: values.pageSize as number,
    ...(values.status === undefined ? {} : { status: values.status as string }),
    sort: values.sort as ListQuery<T>['sort'],
    order: values.order as 'asc' | 'desc',
    ...(fields ? { fields: [...new Set(fields)] } : {}),
    ...(keyword === undefined ? {} : { keyword: keyword.toLowerCase() }),
    idFilters,
  }
}
