import { describe, expect, it } from 'vitest'
import type { ListSpec } from '../../handlers/list-query.js'
import { parseListQuery, runListQuery } from '../../handlers/list-query.js'

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
