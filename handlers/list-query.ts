import type { ListPayload } from './envelope.js'
import {
  clip,
  enumParameter,
  integerParameter,
  invalidParameter,
  rejectUnknown,
  single,
} from './query-params.js'

type Field<T> = keyof T & string

/** What a collection allows in its queries (CONTRACT B3); each resource declares one. */
export interface ListSpec<T extends { id: number }> {
  /** Every field of the record, for `fields`. */
  fields: readonly Field<T>[]
  /** Fields `sort` accepts. */
  sortable: readonly Field<T>[]
  /** The values `status` accepts. */
  statuses: readonly string[]
  /** The text `keyword` searches, case-insensitively. */
  keywordText(record: T): string
  /** Extra integer filters (e.g. `userId` on /orders): parameter name → record field. */
  idFilters?: Readonly<Record<string, Field<T>>>
}

export interface ListQuery<T> {
  page: number
  pageSize: number
  status?: string
  sort: Field<T>
  order: 'asc' | 'desc'
  fields?: Field<T>[]
  keyword?: string
  idFilters: Array<[Field<T>, number]>
}

export const PAGE_SIZE_DEFAULT = 20
export const PAGE_SIZE_MAX = 100
const listParameters = ['page', 'pageSize', 'status', 'sort', 'order', 'fields', 'keyword']

/** Parses and validates a collection query; every bad value is a 400 naming its parameter. */
export function parseListQuery<T extends { id: number }>(
  params: URLSearchParams,
  spec: ListSpec<T>,
  strict: boolean,
): ListQuery<T> {
  const extra = Object.keys(spec.idFilters ?? {})
  if (strict) rejectUnknown(params, [...listParameters, ...extra])
  const page = single(params, 'page')
  const pageSize = single(params, 'pageSize')
  const status = single(params, 'status')
  const sort = single(params, 'sort')
  const order = single(params, 'order')
  const keyword = single(params, 'keyword')
  const fields = parseFields(params, spec.fields)
  if (keyword !== undefined && (keyword.length < 1 || keyword.length > 100)) {
    throw invalidParameter(`keyword must be 1 to 100 characters, got ${keyword.length}`)
  }
  const idFilters: Array<[Field<T>, number]> = []
  for (const name of extra) {
    const raw = single(params, name)
    if (raw !== undefined) {
      idFilters.push([
        spec.idFilters![name]!,
        integerParameter(name, raw, 1, Number.MAX_SAFE_INTEGER),
      ])
    }
  }
  return {
    page: page === undefined ? 1 : integerParameter('page', page, 1, Number.MAX_SAFE_INTEGER),
    pageSize:
      pageSize === undefined
        ? PAGE_SIZE_DEFAULT
        : integerParameter('pageSize', pageSize, 1, PAGE_SIZE_MAX),
    ...(status === undefined ? {} : { status: enumParameter('status', status, spec.statuses) }),
    sort: sort === undefined ? ('id' as Field<T>) : enumParameter('sort', sort, spec.sortable),
    order: order === undefined ? 'asc' : enumParameter('order', order, ['asc', 'desc'] as const),
    ...(fields ? { fields } : {}),
    ...(keyword === undefined ? {} : { keyword: keyword.toLowerCase() }),
    idFilters,
  }
}

/** Parses the query of a single-record read: only `fields`. */
export function parseRecordQuery<T>(
  params: URLSearchParams,
  allFields: readonly Field<T>[],
  strict: boolean,
): Field<T>[] | undefined {
  if (strict) rejectUnknown(params, ['fields'])
  return parseFields(params, allFields)
}

function parseFields<T>(
  params: URLSearchParams,
  allFields: readonly Field<T>[],
): Field<T>[] | undefined {
  const raw = single(params, 'fields')
  if (raw === undefined) return undefined
  const names = raw.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(allFields as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw invalidParameter(
      `fields must be a comma-separated list of ${allFields.join(', ')}; unknown: '${clip(unknown.join(','))}'`,
    )
  }
  return [...new Set(names)] as Field<T>[]
}

/** Keeps only `fields` of a record (all of it when no fields were asked for). */
export function selectFields<T extends object>(
  record: T,
  fields: readonly (keyof T)[] | undefined,
): Partial<T> {
  if (!fields) return record
  const picked: Partial<T> = {}
  for (const field of fields) picked[field] = record[field]
  return picked
}

const keywordTexts = new WeakMap<object, string>()

/**
 * Runs a parsed query over records already in id order: filter, then sort (stable, ties by
 * id ascending), then page, then select fields. Only the page is sorted fully when it is
 * small next to the matches.
 */
export function runListQuery<T extends { id: number; status: string }>(
  records: readonly T[],
  query: ListQuery<T>,
  spec: ListSpec<T>,
): ListPayload<Partial<T>> {
  const { status, keyword, idFilters } = query
  const filtered =
    status === undefined && keyword === undefined && idFilters.length === 0
      ? records
      : records.filter((record) => {
          if (status !== undefined && record.status !== status) return false
          for (const [field, id] of idFilters) if (record[field] !== id) return false
          if (keyword !== undefined) {
            let text = keywordTexts.get(record)
            if (text === undefined) {
              text = spec.keywordText(record).toLowerCase()
              keywordTexts.set(record, text)
            }
            if (!text.includes(keyword)) return false
          }
          return true
        })
  const start = (query.page - 1) * query.pageSize
  const end = start + query.pageSize
  const page =
    start >= filtered.length ? [] : sortedSlice(filtered, query.sort, query.order, start, end)
  return {
    list: page.map((record) => selectFields(record, query.fields)),
    total: filtered.length,
    page: query.page,
    pageSize: query.pageSize,
  }
}

type Keyed<T> = { key: string | number; record: T }

function sortedSlice<T extends { id: number }>(
  records: readonly T[],
  sort: keyof T,
  order: 'asc' | 'desc',
  start: number,
  end: number,
): T[] {
  if (sort === 'id') {
    if (order === 'asc') return records.slice(start, end)
    const from = Math.max(records.length - end, 0)
    return records.slice(from, records.length - start).reverse()
  }
  const sign = order === 'asc' ? 1 : -1
  const compare = (a: Keyed<T>, b: Keyed<T>) =>
    a.key < b.key ? -sign : a.key > b.key ? sign : a.record.id - b.record.id
  const keyed = records.map((record) => ({ key: sortKey(record[sort]), record }))
  if (end * 4 < keyed.length) return topK(keyed, end, compare).slice(start, end)
  return keyed
    .sort(compare)
    .slice(start, end)
    .map((entry) => entry.record)
}

/** Strings sort case-insensitively (deterministic on every machine: no locale), numbers as numbers. */
function sortKey(value: unknown): string | number {
  return typeof value === 'number' ? value : String(value).toLowerCase()
}

/** The first `k` entries in order, without sorting everything. */
function topK<T>(
  entries: readonly Keyed<T>[],
  k: number,
  compare: (a: Keyed<T>, b: Keyed<T>) => number,
): T[] {
  const best: Keyed<T>[] = []
  for (const entry of entries) {
    if (best.length === k && compare(entry, best[k - 1]!) >= 0) continue
    let low = 0
    let high = best.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (compare(best[middle]!, entry) <= 0) low = middle + 1
      else high = middle
    }
    best.splice(low, 0, entry)
    if (best.length > k) best.pop()
  }
  return best.map((entry) => entry.record)
}
