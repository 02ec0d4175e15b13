import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shopCatalog } from '../../shop/index.js'
import { integerQuery } from '../../resources/query.js'

/** Raw query values: digits (some past the safe integers), signs, decimals, words, blanks. */
const raws = fc.oneof(
  fc.stringMatching(/^\d{1,20}$/),
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom('', ' 1', '1.5', '1e3', '0x10', '007', '9007199254740993', 'asc', 'desc', 'id'),
  fc.string({ maxLength: 8 }),
)

describe('query parameters checked without zod agree with their schemas', () => {
  const parameters = [
    ...shopCatalog.resources.flatMap((resource) => Object.entries(resource.listQuery)),
    ['status', integerQuery('status', 0, 599)] as const,
  ].filter(([, parameter]) => parameter.accepts)

  it('covers the paging, sort and order parameters of every list', () => {
    const names = new Set(parameters.map(([name]) => name))
    for (const name of ['page', 'pageSize', 'sort', 'order', 'status'])
      expect(names).toContain(name)
  })

  it('accepts exactly what the schema accepts, for any raw value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...parameters), raws, ([, parameter], raw) => {
        const value = parameter.read(raw)
        expect(parameter.accepts!(value)).toBe(parameter.schema.safeParse(value).success)
      }),
      { numRuns: 3000 },
    )
  })
})
