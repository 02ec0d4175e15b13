import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { success } from '../../contract/envelope.js'
import { filterUnder, Journal, redactedHeaders } from '../../state/journal.js'

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

describe("the journal's byte budget", () => {
  it('counts what a request with many headers holds, not only their text', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    // As a transport hands them over: one object per request, a property per header (1,900
    // one-character headers fit Node's 16 KB of headers).
    const headers = () => {
      const record: Record<string, string> = {}
      for (let n = 0; n < 1900; n++) record[n.toString(36)] = '1'
      return record
    }
    const budget = 4 * 1024 * 1024
    gc()
    const before = process.memoryUsage().heapUsed
    const journal = new Journal({ size: 1000, bodyBytes: 1024, bytes: budget })
    for (let n = 1; n <= 300; n++) journal.add({ ...request(n), requestHeaders: headers() })
    gc()
    const held = process.memoryUsage().heapUsed - before
    expect(journal.bytes).toBeLessThanOrEqual(budget)
    // The estimate may count more than is held (the budget then holds fewer entries), not less:
    // counting the text alone, 279 such entries held ~14 MB of a 4 MB budget.
    expect(held, `${(held / 1e6).toFixed(1)} MB held for ${journal.size} entries`).toBeLessThan(
      budget * 1.25,
    )
  })
})

describe('the headers the journal shows', () => {
  it('shows a credential header by its scheme only when the first word is a scheme', () => {
    expect(
      redactedHeaders({
        authorization: 'Bearer abc.def',
        'proxy-authorization': 'basic dXNlcjpwYXNz',
        cookie: 'sid=1',
        'x-client': 'ios',
      }),
    ).toEqual({
      authorization: 'Bearer ***',
      cookie: '***',
      'proxy-authorization': 'basic ***',
      'x-client': 'ios',
    })
    // A token sent without a scheme, a word after it: the first word is the credential.
    expect(redactedHeaders({ authorization: 'sandbox-admin-token x' })).toEqual({
      authorization: '***',
    })
  })
})

describe('a filter under the base path', () => {
  it('is read relative to it, whether written with it or without, and never across it', () => {
    const journal = new Journal({ size: 10, bodyBytes: 1024, bytes: 1024 * 1024 })
    for (const path of ['/api/users/3', '/api/settings', '/api'])
      journal.add({ ...request(1), path, apiPath: path.slice(4) || '/' })
    const total = (path: string) => journal.page(filterUnder({ path }, '/api')).total
    expect([total('/users/3'), total('/api/users/3'), total('/api/users/{user_id}')]).toEqual([
      1, 1, 1,
    ])
    // `/api` is no tenant: a template is never read across the base path.
    expect(total('/{tenant}/settings')).toBe(0)
    expect([total('/api'), total('/')]).toEqual([1, 1])
    expect(filterUnder({ path: '/api/users' }, '')).toEqual({ path: '/api/users' })
  })
})
