import { describe, expect, it } from 'vitest'
import { Table } from '../../db/table.js'

type Thing = { id: number; name: string }

describe('derived values (a keyword text) when the derivation throws for one record', () => {
  it('the write is whole, the derivation is made again when asked, and never read misaligned', () => {
    const table = new Table<Thing>({ name: 'things' })
    for (const name of ['a', 'b']) table.insert({ name })
    const keyword = (thing: Thing) => {
      if (thing.name === 'boom') throw new Error('keyword threw')
      return thing.name
    }
    expect(table.derived('keyword', keyword)).toEqual(['a', 'b'])
    // The insert is whole: stored, its id taken, the next insert gets the next id.
    expect(table.insert({ name: 'boom' }).id).toBe(3)
    expect(table.insert({ name: 'c' }).id).toBe(4)
    expect(table.size).toBe(4)
    // Asked again, the derivation throws (for that record), as long as it is stored.
    expect(() => table.derived('keyword', keyword)).toThrow('keyword threw')
    table.delete(3)
    expect(table.derived('keyword', keyword)).toEqual(['a', 'b', 'c'])
    // A replace that throws lets it go too; the rows stay right.
    table.replace({ id: 4, name: 'boom' })
    table.replace({ id: 4, name: 'd' })
    expect(table.derived('keyword', keyword)).toEqual(['a', 'b', 'd'])
  })
})
