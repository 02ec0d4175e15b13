import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { success, written } from '../../contract/envelope.js'
import { documentText, JSON_CACHE_CHARACTERS, jsonText } from '../../contract/json-text.js'
import { whole } from '../../db/progress.js'
import { deepFreeze } from '../../db/table.js'

/** JSON-like values, some frozen deeply (as stored records are), some with what JSON skips. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(undefined, Number.NaN, -0, Infinity, '\u2028\ud800"\\'),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
    tie('value').map((value) => deepFreeze(value)),
    fc.constant(new Date(0)),
    fc.constant({ toJSON: () => 'custom' }),
  ),
})).value

describe('jsonText: the bytes JSON.stringify gives, reusing the text of frozen records', () => {
  it('equals JSON.stringify for any JSON-like value, frozen or not, every time', () => {
    fc.assert(
      fc.property(values, (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value))
        expect(jsonText(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 2000 },
    )
  })

  it('equals JSON.stringify for wide objects too (past 64 keys the engine writes them whole)', () => {
    const wide = fc.dictionary(fc.string({ maxLength: 6 }), values, { minKeys: 60, maxKeys: 90 })
    fc.assert(
      fc.property(wide, fc.boolean(), (value, frozen) => {
        const given = frozen ? deepFreeze(value) : value
        expect(jsonText(given)).toBe(JSON.stringify(given))
        expect(jsonText({ list: [given], total: 1 })).toBe(
          JSON.stringify({ list: [given], total: 1 }),
        )
      }),
      { numRuns: 200 },
    )
  })

  it('stays right past the cache budget (the older half is let go, nothing goes stale)', () => {
    const big = 'x'.repeat(64 * 1024)
    const records = Array.from(
      { length: Math.ceil(JSON_CACHE_CHARACTERS / big.length) * 2 },
      (_, id) => deepFreeze({ id, big }),
    )
    for (const record of records) expect(jsonText(record)).toBe(JSON.stringify(record))
    for (const record of records.slice(0, 3)) expect(jsonText(record)).toBe(JSON.stringify(record))
  })

  it('a written record answers the same envelope as any other success', () => {
    const record = deepFreeze({ id: 7, name: 'Ann "A"', tags: ['x'], price: 1.5, note: null })
    const answer = written(record, 201, { location: '/things/7' })
    expect(answer).toEqual(success(record, 201, { location: '/things/7' }))
    expect(answer.body).toBe(JSON.stringify({ code: 0, message: 'success', data: record }))
  })
})

describe('documentText: a data document made in slices, the bytes JSON.stringify gives', () => {
  it('equals JSON.stringify for any document of lists and other members, whatever the slice', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.array(values), values), {
          maxKeys: 4,
        }),
        fc.integer({ min: 1, max: 7 }),
        (document, slice) => {
          const steps = documentText(document, slice)
          let yields = 0
          for (let step = steps.next(); ; step = steps.next(), yields++)
            if (step.done) {
              expect(step.value).toBe(JSON.stringify(document))
              break
            }
          const items = Object.values(document)
            .filter(Array.isArray)
            .reduce((sum, list) => sum + list.length, 0)
          expect(yields).toBe(Math.floor(items / slice))
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('uses the texts kept of records and is the same text when they are kept or not', () => {
    const users = Array.from({ length: 50 }, (_, id) => deepFreeze({ id, name: `u${id}` }))
    const document = { users, nextIds: { users: 51 } }
    const cold = whole(documentText(document, 10))
    for (const user of users.slice(0, 20)) jsonText(user)
    expect(whole(documentText(document, 10))).toBe(cold)
    expect(cold).toBe(JSON.stringify(document))
  })
})
