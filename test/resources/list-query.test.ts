import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Table } from '../../db/table.js'
import type { ListSpec } from '../../resources/list.js'
import { runListQuery } from '../../resources/list.js'
import { parseListQuery } from '../../resources/query.js'

interface Item {
  id: number
  name: string
  status: string
  score: number
}

const spec: ListSpec<Item> = {
  fields: ['id', 'name', 'status', 'score'],
  sortable: ['id', 'name', 'score'],
  statuses: ['on', 'off'],
  keywordText: (item) => item.name,
}

const items: Item[] = Array.from({ length: 500 }, (_, index) => ({
  id: index + 1,
  name: `item ${String((index * 7919) % 500).padStart(3, '0')}`,
  status: index % 3 === 0 ? 'off' : 'on',
  score: (index * 31) % 17,
}))

function run(query: string) {
  return runListQuery(items, parseListQuery(new URLSearchParams(query), spec, false), spec)
}

/** The reference answer: full filter, full stable sort, slice. */
function reference(
  filter: (item: Item) => boolean,
  key: keyof Item,
  order: 'asc' | 'desc',
  page: number,
  size: number,
) {
  const sign = order === 'asc' ? 1 : -1
  return items
    .filter(filter)
    .sort((a, b) => (a[key] < b[key] ? -sign : a[key] > b[key] ? sign : a.id - b.id))
    .slice((page - 1) * size, page * size)
}

describe('list query engine', () => {
  it.each([
    ['sort=score', 'score', 'asc', 1, 20],
    ['sort=score&order=desc', 'score', 'desc', 1, 20],
    ['sort=score&order=desc&page=3&pageSize=7', 'score', 'desc', 3, 7],
    ['sort=name&page=24&pageSize=20', 'name', 'asc', 24, 20],
    ['sort=id&order=desc&page=2&pageSize=100', 'id', 'desc', 2, 100],
  ] as const)(
    'sorts before it pages, stably with ties by id: %s',
    (query, key, order, page, size) => {
      expect(run(query).list).toEqual(reference(() => true, key, order, page, size))
    },
  )

  it('filters, then sorts, then pages; total counts every match', () => {
    const result = run('status=on&keyword=ITEM 1&sort=score&order=desc&pageSize=5&page=2')
    const filter = (item: Item) => item.status === 'on' && item.name.includes('item 1')
    expect(result.list).toEqual(reference(filter, 'score', 'desc', 2, 5))
    expect(result.total).toBe(items.filter(filter).length)
  })

  it('selects fields after paging', () => {
    expect(run('fields=name,id&pageSize=2').list).toEqual([
      { name: items[0]!.name, id: 1 },
      { name: items[1]!.name, id: 2 },
    ])
  })
})

describe('list queries over a table’s indexes (sorted views, keyword texts)', () => {
  const big: Item[] = Array.from({ length: 6000 }, (_, index) => ({
    id: index + 1,
    name: `Item ${String((index * 7919) % 977).padStart(3, '0')}`,
    status: index % 3 === 0 ? 'off' : 'on',
    score: (index * 31) % 17,
  }))

  function fresh() {
    const table = new Table<Item>()
    table.load(big.map((item) => ({ ...item })))
    return table
  }

  /** The reference answer over the table's current records: filter, full stable sort, slice. */
  function expected(table: Table<Item>, query: string) {
    const params = new URLSearchParams(query)
    const keyword = params.get('keyword')?.toLowerCase()
    const status = params.get('status')
    const key = (params.get('sort') ?? 'id') as keyof Item
    const sign = params.get('order') === 'desc' ? -1 : 1
    const size = Number(params.get('pageSize') ?? 20)
    const page = Number(params.get('page') ?? 1)
    const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v) as string | number
    const matches = table
      .all()
      .filter(
        (item) =>
          (!status || item.status === status) &&
          (!keyword || item.name.toLowerCase().includes(keyword)),
      )
    const sorted = [...matches].sort((a, b) =>
      lower(a[key]) < lower(b[key]) ? -sign : lower(a[key]) > lower(b[key]) ? sign : a.id - b.id,
    )
    return { list: sorted.slice((page - 1) * size, page * size), total: matches.length }
  }

  const queries = [
    'sort=score',
    'sort=score&order=desc',
    'sort=score&order=desc&page=40&pageSize=100',
    'sort=name&order=desc&page=3',
    'status=on&sort=score&order=desc&pageSize=50&page=7',
    'keyword=ITEM 0&sort=name&order=desc',
    'keyword=1&status=off&sort=score&page=2',
    'keyword=zzz&sort=score',
    'sort=name&page=301',
  ]

  it.each(queries)('answers %s exactly as a full sort would', (query) => {
    const table = fresh()
    const result = runListQuery(
      table,
      parseListQuery(new URLSearchParams(query), spec, false),
      spec,
    )
    expect({ list: result.list, total: result.total }).toEqual(expected(table, query))
  })

  it('keeps its indexes in step with inserts, replaces and deletes', () => {
    const table = fresh()
    const run = (query: string) =>
      runListQuery(table, parseListQuery(new URLSearchParams(query), spec, false), spec)
    for (const query of queries) {
      run(query)
      // Asked again: from the matches (and their marks) the table kept.
      const again = run(query)
      expect({ list: again.list, total: again.total }, query).toEqual(expected(table, query))
    }
    table.insert({ name: 'item 000 new', status: 'on', score: 0 })
    table.replace({ ...table.get(10)!, score: 16, name: 'ITEM 999' })
    table.delete(11)
    table.delete(4000)
    table.insert({ name: 'Item 500', status: 'off', score: 8 })
    for (const query of queries) {
      const result = run(query)
      expect({ list: result.list, total: result.total }, query).toEqual(expected(table, query))
    }
  })

  it('matches whose ids reach 2^31 − 1 are marked in a Set, not a byte per id (2 GB), and counted so', () => {
    const table = new Table<Item>()
    const last = { id: 2 ** 31 - 1, name: 'Item zzz', status: 'on' as const, score: 1 }
    table.load([...big.slice(0, 4000).map((item) => ({ ...item })), last])
    const before = table.estimatedBytes
    const query = 'status=on&sort=name&order=desc'
    const result = runListQuery(
      table,
      parseListQuery(new URLSearchParams(query), spec, false),
      spec,
    )
    expect({ list: result.list, total: result.total }).toEqual(expected(table, query))
    expect(result.list[0]).toEqual(last)
    // The sort index, the cached matches and their marks: some 300 kB, not the 2 GB of a byte per id.
    expect(table.estimatedBytes - before).toBeLessThan(1_000_000)
  })

  it('a filter’s cached matches are the plain scan’s after any sequence of writes and queries (property)', () => {
    const query = fc
      .tuple(
        fc.constantFrom('', 'status=on', 'status=off'),
        fc.constantFrom('', 'keyword=item 1', 'keyword=0', 'keyword=9', 'keyword=zz'),
        fc.constantFrom('sort=id', 'sort=name&order=desc', 'sort=score', 'sort=score&order=desc'),
        fc.integer({ min: 1, max: 40 }),
      )
      .map(([status, keyword, sort, page]) =>
        [status, keyword, sort, `page=${page}&pageSize=50`].filter(Boolean).join('&'),
      )
    const step = fc.oneof(
      query.map((text) => ({ kind: 'query' as const, text })),
      fc
        .record({ name: fc.integer({ min: 0, max: 999 }), on: fc.boolean() })
        .map((values) => ({ kind: 'insert' as const, ...values })),
      fc
        .record({ id: fc.integer({ min: 1, max: 6100 }), name: fc.integer({ min: 0, max: 999 }) })
        .map((values) => ({ kind: 'replace' as const, ...values })),
      fc.integer({ min: 1, max: 6100 }).map((id) => ({ kind: 'delete' as const, id })),
    )
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        const table = fresh()
        for (const next of steps) {
          if (next.kind === 'insert')
            table.insert({
              name: `Item ${String(next.name).padStart(3, '0')}`,
              status: next.on ? 'on' : 'off',
              score: next.name % 17,
            })
          else if (next.kind === 'replace') {
            const record = table.get(next.id)
            if (record) table.replace({ ...record, name: `ITEM ${next.name}`, status: 'off' })
          } else if (next.kind === 'delete') table.delete(next.id)
          else {
            const result = runListQuery(
              table,
              parseListQuery(new URLSearchParams(next.text), spec, false),
              spec,
            )
            expect({ list: result.list, total: result.total }, next.text).toEqual(
              expected(table, next.text),
            )
          }
        }
      }),
      { numRuns: 60 },
    )
  })
})
