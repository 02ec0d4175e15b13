import type { IdMarks } from '../db/id-marks.js'
import { idMarks } from '../db/id-marks.js'
import type { SortedIndex, SortKey } from '../db/sorted-index.js'
import type { ListPayload } from '../contract/envelope.js'

type Field<T> = keyof T & string

/** What a collection allows in its queries (CONTRACT B3); each resource declares one. */
export interface ListSpec<T extends { id: number }> {
  /** Every field of the record, for `fields`. */
  fields: readonly Field<T>[]
  /** Fields `sort` accepts. */
  sortable: readonly Field<T>[]
  /** The values `status` accepts. */
  statuses: readonly string[]
  /**
   * The text `keyword` searches, case-insensitively (without it, `keyword` is refused): several
   * fields joined by U+0000, which no keyword matches across.
   */
  keywordText?(record: T): string
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

/**
 * Where a list query reads: a table, whose indexes (keyword texts, sorted views) make big
 * collections fast, or just an array of records in id order (e.g. one user's orders).
 */
export interface ListSource<T extends { readonly id: number }> {
  rows(): readonly T[]
  derived?(name: string, compute: (record: T) => string): readonly string[]
  sortedBy?(name: string, key: (record: T) => SortKey): SortedIndex<T>
  /** The records a filter matched, kept until the next write (a table's match cache). */
  matching?(filter: string, scan: () => readonly T[]): readonly T[]
}

/** Above this many matches, a sorted page walks the table's sorted index instead of sorting. */
const INDEX_THRESHOLD = 2000

/**
 * Runs a parsed query: filter, then sort (stable, ties by id ascending), then page, then
 * select fields. Sorted pages of big collections come from the table's sorted index, so no
 * request sorts the whole collection; `total` always counts every match.
 */
export function runListQuery<T extends { id: number }>(
  source: ListSource<T> | readonly T[],
  query: ListQuery<T>,
  spec: ListSpec<T>,
): ListPayload<Partial<T>> {
  const table: ListSource<T> = isSource(source) ? source : { rows: () => source }
  const rows = table.rows()
  const start = (query.page - 1) * query.pageSize
  const end = start + query.pageSize
  const accept = matcher(table, rows, query, spec)
  let total = rows.length
  let page: T[]
  if (!accept) {
    page =
      query.sort === 'id'
        ? idPage(rows, query.order, start, end)
        : sortedPage(table, rows, query, start, end)
  } else {
    const scan = () => {
      const found: T[] = []
      for (let position = 0; position < rows.length; position++) {
        if (accept(rows[position]!, position)) found.push(rows[position]!)
      }
      return found
    }
    // A big table keeps what a filter matched until its next write: the same query asked again
    // skips the scan, and `total` is the same exact count.
    const matches =
      rows.length > INDEX_THRESHOLD && table.matching
        ? table.matching(filterKey(query), scan)
        : scan()
    total = matches.length
    page =
      query.sort === 'id' || start >= matches.length
        ? idPage(matches, query.order, start, end)
        : sortedPage(table, matches, query, start, end)
  }
  return {
    list: query.fields ? page.map((record) => selectFields(record, query.fields)) : page,
    total,
    page: query.page,
    pageSize: query.pageSize,
  }
}

/** What identifies a query's filter (not its page, sort or fields). */
function filterKey<T>(query: ListQuery<T>): string {
  return JSON.stringify([query.status, query.keyword, query.idFilters])
}

function isSource<T extends { id: number }>(
  source: ListSource<T> | readonly T[],
): source is ListSource<T> {
  return !Array.isArray(source)
}

/** The filter of a query, or null when it has none. */
function matcher<T extends { id: number }>(
  table: ListSource<T>,
  rows: readonly T[],
  query: ListQuery<T>,
  spec: ListSpec<T>,
): ((record: T, position: number) => boolean) | null {
  const { status, keyword, idFilters } = query
  if (status === undefined && keyword === undefined && idFilters.length === 0) return null
  // String(): a keyword rule may return something else for a record made after the seed was checked.
  const lower = (record: T) => String(spec.keywordText!(record) ?? '').toLowerCase()
  // A keyword rule joins its fields with U+0000 (ListSpec.keywordText), and a keyword is a
  // substring of one field: one holding U+0000 would match across two, so it matches none.
  if (keyword?.includes('\u0000')) return () => false
  const texts =
    keyword === undefined ? null : (table.derived?.('keyword', lower) ?? rows.map(lower))
  return (record, position) => {
    if (status !== undefined && (record as { status?: unknown }).status !== status) return false
    for (const [field, id] of idFilters) if (record[field] !== id) return false
    return texts === null || texts[position]!.includes(keyword!)
  }
}

/** Records [start, end) in id order (the order records are stored in) or its reverse. */
function idPage<T>(records: readonly T[], order: 'asc' | 'desc', start: number, end: number): T[] {
  if (order === 'asc') return records.slice(start, end)
  return records
    .slice(Math.max(records.length - end, 0), Math.max(records.length - start, 0))
    .reverse()
}

/** Records [start, end) of `records` (all rows, or the matches) in the query's order. */
function sortedPage<T extends { id: number }>(
  table: ListSource<T>,
  records: readonly T[],
  query: ListQuery<T>,
  start: number,
  end: number,
): T[] {
  const key = (record: T) => sortKey(record[query.sort])
  if (records.length > INDEX_THRESHOLD && table.sortedBy) {
    const index = table.sortedBy(`sort:${query.sort}`, key)
    return walk(index, query.order, start, end, records === table.rows() ? null : idMarks(records))
  }
  const sign = query.order === 'asc' ? 1 : -1
  const keyed = records.map((record) => ({ key: key(record), record }))
  const compare = (a: Keyed<T>, b: Keyed<T>) =>
    a.key < b.key ? -sign : a.key > b.key ? sign : a.record.id - b.record.id
  const ordered =
    end * 4 < keyed.length
      ? topK(keyed, end, compare)
      : keyed.sort(compare).map((entry) => entry.record)
  return ordered.slice(start, end)
}

/** Walks a sorted index in the query's order, keeping the wanted records, until the page is full. */
function walk<T extends { id: number }>(
  index: SortedIndex<T>,
  order: 'asc' | 'desc',
  start: number,
  end: number,
  wanted: IdMarks | null,
): T[] {
  const page: T[] = []
  let seen = 0
  index.scan(order, (record) => {
    if (wanted && !wanted.has(record.id)) return false
    if (seen >= start) page.push(record)
    seen += 1
    return seen >= end
  })
  return page
}

type Keyed<T> = { key: SortKey; record: T }

/** Strings sort case-insensitively (deterministic on every machine: no locale), numbers as numbers. */
export function sortKey(value: unknown): SortKey {
  return typeof value === 'number' ? value : String(value).toLowerCase()
}

/**
 * The first `k` entries in order, without sorting everything: a max-heap of the best `k` seen
 * (O(n log k) whatever the input's order; `compare` is a total order, ties broken by id).
 */
function topK<T>(
  entries: readonly Keyed<T>[],
  k: number,
  compare: (a: Keyed<T>, b: Keyed<T>) => number,
): T[] {
  const heap: Keyed<T>[] = []
  for (const entry of entries) {
    if (heap.length < k) {
      // Sift up: the worst of the best at the root.
      let at = heap.push(entry) - 1
      while (at > 0) {
        const parent = (at - 1) >>> 1
        if (compare(heap[parent]!, heap[at]!) >= 0) break
        ;[heap[parent], heap[at]] = [heap[at]!, heap[parent]!]
        at = parent
      }
    } else if (k > 0 && compare(entry, heap[0]!) < 0) {
      // Better than the worst kept: it takes the root's place, sifted down.
      heap[0] = entry
      let at = 0
      for (;;) {
        const left = 2 * at + 1
        const right = left + 1
        let largest = at
        if (left < k && compare(heap[left]!, heap[largest]!) > 0) largest = left
        if (right < k && compare(heap[right]!, heap[largest]!) > 0) largest = right
        if (largest === at) break
        ;[heap[largest], heap[at]] = [heap[at]!, heap[largest]!]
        at = largest
      }
    }
  }
  return heap.sort(compare).map((entry) => entry.record)
}
