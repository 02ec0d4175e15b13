import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { whole } from '../../db/progress.js'
import type { Snapshot } from '../../db/store.js'
import { FoldedFile } from '../../server/data-file/fold.js'
import { shopCatalog } from '../../shop/index.js'

/** The text the data file held when it was one `JSON.stringify` of the whole document. */
function asOneText(snapshot: Snapshot, pretty: boolean): string {
  const document: Record<string, unknown> = {}
  for (const { name, fields } of shopCatalog.resources)
    document[name] = (snapshot[name] ?? []).map((record) => {
      const copy: Record<string, unknown> = {}
      for (const field of fields) if (field in record) copy[field] = record[field as never]
      for (const key of Object.keys(record)) if (!(key in copy)) copy[key] = record[key as never]
      return copy
    })
  document.nextIds = snapshot.nextIds
  return `${JSON.stringify(document, null, pretty ? 2 : undefined)}\n`
}

const record = fc
  .record({
    id: fc.nat(),
    name: fc.string({ unit: 'binary' }),
    tags: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 3 }),
    extra: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })),
  })
  .map((value) => value as unknown as Snapshot[string][number])

describe('the data file as text', () => {
  it('is, record by record and in slices, the text JSON.stringify gives the whole document, pretty or compact', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 5 }),
        fc.array(record, { maxLength: 5 }),
        fc.option(fc.array(record, { maxLength: 2500 }), { freq: 5 }),
        fc.boolean(),
        (users, products, many, pretty) => {
          const snapshot = {
            users,
            products,
            orders: many ?? [],
            nextIds: { users: 3, products: 1, orders: 7 },
          } as unknown as Snapshot
          const file = new FoldedFile('db.json', '/nowhere/db.json', shopCatalog, pretty, () => {})
          expect(whole(file.serializing(snapshot))).toBe(asOneText(snapshot, pretty))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('gives the event loop back every 1,000 records', () => {
    const orders = Array.from({ length: 2500 }, (_, id) => ({ id: id + 1 }))
    const snapshot = { users: [], products: [], orders, nextIds: {} } as unknown as Snapshot
    const file = new FoldedFile('db.json', '/nowhere/db.json', shopCatalog, true, () => {})
    let slices = 0
    const writing = file.serializing(snapshot)
    while (!writing.next().done) slices++
    expect(slices).toBe(2)
  })
})
