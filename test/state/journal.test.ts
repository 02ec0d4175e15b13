import { describe, expect, it } from 'vitest'
import { success } from '../../contract/envelope.js'
import { Journal } from '../../state/journal.js'

const request = (n: number) => ({
  at: Date.UTC(2026, 0, 1) + n,
  method: 'GET',
  path: `/users/${n}`,
  apiPath: `/users/${n}`,
  search: n % 2 ? `?n=${n}` : '',
  durationMs: n,
  response: success({ id: n }),
})

describe('the journal ring', () => {
  it('keeps the last entries in order once full, each with its own values', () => {
    const journal = new Journal({ size: 3, bodyBytes: 1024, bytes: 1024 * 1024 })
    for (let n = 1; n <= 4; n++) journal.add(request(n))
    const before = journal.entries()
    for (let n = 5; n <= 8; n++) journal.add(request(n))
    expect(journal.entries().map((entry) => [entry.id, entry.path, entry.query])).toEqual([
      [6, '/users/6', {}],
      [7, '/users/7', { n: '7' }],
      [8, '/users/8', {}],
    ])
    expect(journal.entries().map((entry) => entry.responseBody)).toEqual([
      { code: 0, message: 'success', data: { id: 6 } },
      { code: 0, message: 'success', data: { id: 7 } },
      { code: 0, message: 'success', data: { id: 8 } },
    ])
    // What a reader got earlier is its own: entries written since do not change it.
    expect(before.map((entry) => entry.path)).toEqual(['/users/2', '/users/3', '/users/4'])
    expect(journal.size).toBe(3)
  })
})
