import { describe, expect, it } from 'vitest'
import { SortedIndex } from '../../db/sorted-index.js'
import { UniqueConflict } from '../../db/table.js'
import { Table } from '../../index.js'

interface Thing {
  id: number
  key: string
  owner: number
}

const things = () =>
  new Table<Thing, 'key', 'owner'>({
    name: 'things',
    unique: { key: { key: (thing) => thing.key.toLowerCase() } },
    groups: { owner: { key: (thing) => thing.owner } },
  })

describe('Table', () => {
  it('assigns ids 1, 2, 3 … and never reuses one after a delete', () => {
    const table = things()
    expect(table.insert({ key: 'a', owner: 1 }).id).toBe(1)
    expect(table.insert({ key: 'b', owner: 1 }).id).toBe(2)
    table.delete(2)
    expect(table.insert({ key: 'c', owner: 1 }).id).toBe(3)
    expect(table.all().map((thing) => thing.id)).toEqual([1, 3])
  })

  it('keeps every index in step with inserts, replaces and deletes', () => {
    const table = things()
    table.insert({ key: 'Alpha', owner: 1 })
    table.insert({ key: 'beta', owner: 2 })
    expect(table.findUnique('key', 'alpha')?.id).toBe(1)
    table.replace({ id: 1, key: 'gamma', owner: 2 })
    expect(table.findUnique('key', 'alpha')).toBeUndefined()
    expect(table.findUnique('key', 'gamma')?.id).toBe(1)
    expect(table.group('owner', 2)).toEqual([1, 2])
    expect(table.group('owner', 1)).toEqual([])
    table.delete(2)
    expect(table.findUnique('key', 'beta')).toBeUndefined()
    expect(table.group('owner', 2)).toEqual([1])
    expect(table.all()).toEqual([{ id: 1, key: 'gamma', owner: 2 }])
  })

  it('refuses a duplicate unique key and leaves the table as it was', () => {
    const table = things()
    table.insert({ key: 'a', owner: 1 })
    table.insert({ key: 'b', owner: 1 })
    expect(() => table.replace({ id: 2, key: 'A', owner: 1 })).toThrow(/already holds/)
    expect(table.findUnique('key', 'b')?.id).toBe(2)
    expect(() => table.insert({ key: 'A', owner: 1 })).toThrow(/already holds/)
    expect(table.size).toBe(2)
    // What the data service turns into the resource's 409: which index, whose key, the value given.
    let refusal: unknown
    try {
      table.insert({ key: 'B', owner: 1 })
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(UniqueConflict)
    expect(refusal).toMatchObject({
      table: 'things',
      index: 'key',
      key: 'b',
      holder: 2,
      value: 'B',
    })
    expect(table.nextId).toBe(3)
  })

  it('freezes records, deeply', () => {
    const table = new Table<{ id: number; items: Array<{ n: number }> }>()
    const record = table.insert({ items: [{ n: 1 }] })
    expect(
      Object.isFrozen(record) && Object.isFrozen(record.items) && Object.isFrozen(record.items[0]),
    ).toBe(true)
  })

  it('loads records in any order and continues the sequence after the highest id', () => {
    const table = things()
    table.load([
      { id: 9, key: 'x', owner: 1 },
      { id: 4, key: 'y', owner: 1 },
    ])
    expect(table.all().map((thing) => thing.id)).toEqual([4, 9])
    expect(table.insert({ key: 'z', owner: 1 }).id).toBe(10)
    table.load([], 20)
    expect(table.insert({ key: 'z', owner: 1 }).id).toBe(20)
  })

  it('keeps a loaded group in step with the writes after it', () => {
    const table = things()
    table.load([
      { id: 1, key: 'a', owner: 7 },
      { id: 2, key: 'b', owner: 8 },
      { id: 3, key: 'c', owner: 7 },
    ])
    expect(table.group('owner', 7)).toEqual([1, 3])
    table.insert({ key: 'd', owner: 7 })
    table.delete(1)
    expect(table.group('owner', 7)).toEqual([3, 4])
    expect(table.group('owner', 8)).toEqual([2])
  })

  it('hands out its records as a list of their own: sorting it or deleting while walking it changes nothing of the table', () => {
    const table = things()
    for (const key of ['c', 'a', 'b']) table.insert({ key, owner: 1 })
    const all = table.all()
    expect(() => (all as Thing[]).sort((x, y) => (x.key < y.key ? -1 : 1))).toThrow(TypeError)
    expect(table.all()).toBe(all)
    expect(table.get(1)?.key).toBe('c')
    for (const thing of table.all()) table.delete(thing.id)
    expect(table.size).toBe(0)
    expect(all.map((thing) => thing.id)).toEqual([1, 2, 3])
    table.insert({ key: 'd', owner: 2 })
    expect(table.all().map((thing) => thing.id)).toEqual([4])
  })

  describe('a frozen list loaded again (every sandbox of a scenario, every reset)', () => {
    // One set of indexes, as a store's tables of one API share them.
    const options = {
      name: 'things',
      unique: { key: { key: (thing: Thing) => thing.key.toLowerCase() } },
      groups: { owner: { key: (thing: Thing) => thing.owner } },
    }
    const shared = () => new Table<Thing, 'key', 'owner'>(options)
    const list = () =>
      Object.freeze([
        { id: 1, key: 'Alpha', owner: 7 },
        { id: 2, key: 'beta', owner: 8 },
        { id: 3, key: 'gamma', owner: 7 },
      ])
    const state = (table: Table<Thing, 'key', 'owner'>) => ({
      ids: table.all().map((thing) => thing.id),
      alpha: table.findUnique('key', 'alpha')?.id,
      delta: table.findUnique('key', 'delta')?.id,
      seven: table.group('owner', 7),
      eight: table.group('owner', 8),
      next: table.nextId,
    })
    const loaded = {
      ids: [1, 2, 3],
      alpha: 1,
      delta: undefined,
      seven: [1, 3],
      eight: [2],
      next: 4,
    }

    it("gives each table the list's indexes, and one table's writes stay its own", () => {
      const records = list()
      const tables = Array.from({ length: 4 }, () => {
        const table = shared()
        table.load(records)
        return table
      })
      for (const table of tables) expect(state(table)).toEqual(loaded)
      const [first, , third, fourth] = tables
      third!.insert({ key: 'delta', owner: 7 })
      third!.replace({ id: 1, key: 'omega', owner: 8 })
      third!.delete(2)
      expect(state(third!)).toEqual({
        ids: [1, 3, 4],
        alpha: undefined,
        delta: 4,
        seven: [3, 4],
        eight: [1],
        next: 5,
      })
      // The unique index still refuses a key another record holds, before and after the copy.
      expect(() => fourth!.insert({ key: 'BETA', owner: 1 })).toThrow(UniqueConflict)
      expect(() => third!.insert({ key: 'DELTA', owner: 1 })).toThrow(UniqueConflict)
      for (const table of [first!, fourth!]) expect(state(table)).toEqual(loaded)
      const later = shared()
      later.load(records)
      expect(state(later)).toEqual(loaded)
    })

    it('keeps what it was indexed into when a table sharing it loads another list', () => {
      const records = list()
      for (let i = 0; i < 3; i++) shared().load(records)
      const table = shared()
      table.load(records)
      table.load(Object.freeze([{ id: 5, key: 'epsilon', owner: 9 }]))
      expect(table.group('owner', 9)).toEqual([5])
      expect(table.findUnique('key', 'alpha')).toBeUndefined()
      const after = shared()
      after.load(records)
      expect(state(after)).toEqual(loaded)
    })

    it('checks a list that is not frozen at every load (it may have changed)', () => {
      const records: Thing[] = [...list()]
      shared().load(records)
      shared().load(records)
      records.push({ id: 4, key: 'ALPHA', owner: 1 })
      expect(() => shared().load(records)).toThrow(UniqueConflict)
    })
  })
})

describe('SortedIndex', () => {
  it('stays sorted by (key, id) through thousands of adds and removes across chunks', () => {
    const records = Array.from({ length: 3000 }, (_, index) => ({
      id: index + 1,
      score: (index * 7) % 13,
    }))
    const index = new SortedIndex<{ id: number; score: number }>((record) => record.score, records)
    const live = new Map(records.map((record) => [record.id, record]))
    let nextId = 3001
    for (let step = 0; step < 4000; step++) {
      if (step % 3 === 0 && live.size > 0) {
        const victim = live.get([...live.keys()][(step * 31) % live.size]!)!
        index.remove(victim)
        live.delete(victim.id)
      } else {
        const record = { id: nextId++, score: (step * 5) % 13 }
        index.add(record)
        live.set(record.id, record)
      }
    }
    const ascending: number[] = []
    index.scan('asc', (record) => {
      ascending.push(record.id)
      return false
    })
    const expected = [...live.values()].sort((a, b) => a.score - b.score || a.id - b.id)
    expect(ascending).toEqual(expected.map((record) => record.id))
    const descending: number[] = []
    index.scan('desc', (record) => {
      descending.push(record.id)
      return false
    })
    expect(descending).toEqual(
      [...expected].sort((a, b) => b.score - a.score || a.id - b.id).map((r) => r.id),
    )
    expect(index.size).toBe(live.size)
  })
})

describe('read-only fields', () => {
  it('are derived from the schemas, nested items included', async () => {
    const { readOnlyFields } = await import('../../contract/registry.js')
    const { orderSchema, userSchema } = await import('../../index.js')
    expect(readOnlyFields(userSchema)).toEqual(['id', 'createdAt', 'updatedAt'])
    expect(readOnlyFields(orderSchema)).toEqual([
      'id',
      'productName',
      'unitPrice',
      'total',
      'createdAt',
      'updatedAt',
    ])
  })
})
