import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requestUrl } from '../../server/node-request.js'

/**
 * A plain request target is split, not parsed (server/node-request.ts): whatever it is, the
 * path, the query and the search parameters the server reads must be the URL parser's.
 */
const parsed = (target: string) => new URL(`http://sandbox.local${target}`)
const seen = (url: URL) => ({
  pathname: url.pathname,
  search: url.search,
  href: url.href,
  origin: url.origin,
  host: url.host,
  params: [...url.searchParams],
  text: String(url),
})

/** Targets near the edge: safe characters, and every kind the parser changes. */
const pieces = [
  'users',
  '123',
  '/',
  '//',
  '.',
  '..',
  '%2e',
  '%',
  '%41',
  '?',
  '&',
  '=',
  'a=b',
  "'",
  '"',
  ' ',
  '#',
  '\\',
  '<',
  '>',
  '`',
  '{',
  '|',
  '[',
  '^',
  '\t',
  'é',
  '~',
  '+',
  ':',
  '@',
  '!',
  '$',
  '(',
  '*',
  ';',
  ',',
]
const target = fc
  .array(fc.constantFrom(...pieces), { maxLength: 12 })
  .map((parts) => `/${parts.join('')}`)

describe('requestUrl: a plain target split is the URL the parser gives', () => {
  it('agrees with new URL() on random targets (fast-check)', () => {
    let plain = 0
    fc.assert(
      fc.property(target, (sent) => {
        const url = requestUrl(sent)
        if (!(url instanceof URL)) plain++
        expect(url && seen(url)).toEqual(seen(parsed(sent)))
      }),
      { numRuns: 3000 },
    )
    // Most targets took the split path (the test would prove nothing otherwise).
    expect(plain).toBeGreaterThan(300)
  })

  it('splits the common targets and parses the rest', () => {
    for (const sent of [
      '/users/123',
      '/users?page=1&pageSize=20',
      '/users?',
      '/a//b',
      '/%E2%82%AC',
    ])
      expect(requestUrl(sent)).not.toBeInstanceOf(URL)
    for (const sent of ['/a/../b', '/a/./b', '/a/..', '/x y', "/q?a='1'", '/é', '/a#b', '/a\\b'])
      expect(requestUrl(sent)).toBeInstanceOf(URL)
    expect(requestUrl('/users?')!.search).toBe('')
    expect([...requestUrl('/u?a=1&a=2&b=%20x+y')!.searchParams]).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', ' x y'],
    ])
  })
})
