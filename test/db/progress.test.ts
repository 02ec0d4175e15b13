import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { inSlices, SLICE_MS } from '../../db/progress.js'
import { defineResource, idSchema, readOnly } from '../../index.js'
import { Catalog } from '../../resources/catalog.js'
import { seedingDocument } from '../../resources/seed.js'
import { shopApi } from '../../shop/index.js'

const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

/** Seeds 1,500 records of `cost` ms each in slices; the length of each slice that made them. */
async function slicesOf(cost: number): Promise<number[]> {
  let made = 0
  const things = defineResource({
    name: 'things',
    singular: 'thing',
    schema: z.object({ id: readOnly(idSchema), label: z.string() }),
    list: { sortable: ['id'] },
    permissions: { list: 'anyone', read: 'anyone' },
    seed: {
      count: 10,
      *generate({ count }) {
        for (let index = 0; index < count; index++) {
          busy(cost)
          made++
          yield { label: `thing ${index}` }
        }
      },
    },
  })
  const slices: number[] = []
  function* timed<T>(work: Generator<void, T>): Generator<void, T> {
    for (;;) {
      const before = made
      const began = performance.now()
      const step = work.next()
      if (step.done) return step.value
      if (made > before && made < 1500) slices.push(performance.now() - began)
      yield
    }
  }
  const data = await inSlices(
    timed(seedingDocument(Catalog.of(shopApi, [things]), { things: 1500 })),
  )
  expect((data as unknown as { things: unknown[] }).things).toHaveLength(1500)
  return slices
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!

/**
 * Seeding in slices of time, not of a count: 1,000 of a seeder's costly records (faker's, ~0.1
 * ms each and several times that while cold) made one slice of ~300 ms in the `big` scenario.
 */
describe('seeding gives the loop back every few milliseconds, whatever a record costs', () => {
  it('records of 0.2 ms: a slice is SLICE_MS and at most 64 records past it', async () => {
    const slices = await slicesOf(0.2)
    // 300 ms of records: counted in thousands, they were one or two slices.
    expect(slices.length).toBeGreaterThan(300 / (SLICE_MS + 64 * 0.2 + 5))
    expect(median(slices)).toBeLessThan(SLICE_MS + 64 * 0.2 + 5)
  })

  it('records of 0.01 ms: hundreds to a slice, not a yield every few', async () => {
    const slices = await slicesOf(0.01)
    expect(slices.length).toBeLessThan(1500 / 200)
  })
})
