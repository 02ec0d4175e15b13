import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BodyBudget, fromNodeRequest, HELD_FROM, requestUrl } from '../../server/node-request.js'
import { SLOWEST_READ } from '../../server/timeouts.js'

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

/**
 * The body as an operation reads it: whole when it has arrived before it is asked for (taken
 * from the stream's buffer at once), or as it arrives; the same bytes and the same refusals
 * either way, and the connection goes on to the next request.
 */
describe('fromNodeRequest: readBody', () => {
  type Read = Uint8Array | 'too-large' | 'busy'
  async function serve(
    limit: number,
    budget: BodyBudget,
    waitMs: number,
  ): Promise<{ url: string; reads: Read[]; close: () => void }> {
    const reads: Read[] = []
    const server = createServer((req, res) => {
      setTimeout(async () => {
        const read = await fromNodeRequest(req, new URL('http://x/'), budget).readBody(limit)
        reads.push(read)
        res.end(typeof read === 'string' ? read : `${read.byteLength}:${Buffer.from(read)}`)
      }, waitMs)
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/`, reads, close: () => server.close() }
  }
  const post = (url: string, body: string | AsyncIterable<Uint8Array>) =>
    fetch(url, {
      method: 'POST',
      body: body as BodyInit,
      ...(typeof body === 'string' ? {} : { duplex: 'half' }),
    } as RequestInit).then((res) => res.text())
  async function* slowly(...pieces: string[]) {
    for (const piece of pieces) {
      yield new TextEncoder().encode(piece)
      await new Promise((done) => setTimeout(done, 30))
    }
  }

  it('gives the same bytes whether the body arrived before it was asked for or after', async () => {
    for (const waitMs of [0, 50]) {
      const server = await serve(1024, new BodyBudget(4096), waitMs)
      try {
        expect(await post(server.url, '{"name":"Ann"}')).toBe('14:{"name":"Ann"}')
        expect(await post(server.url, slowly('{"name":', '"Bob"}'))).toBe('14:{"name":"Bob"}')
        expect(await post(server.url, '')).toBe('0:')
        // Past the limit, and past the budget's room: refused either way.
        expect(await post(server.url, 'x'.repeat(1025))).toBe('too-large')
        expect(await post(server.url, slowly('x'.repeat(1000), 'x'.repeat(25)))).toBe('too-large')
        expect(server.reads).toHaveLength(5)
      } finally {
        server.close()
      }
      const full = new BodyBudget(1024)
      full.take(1000)
      const busy = await serve(4096, full, waitMs)
      try {
        expect(await post(busy.url, 'x'.repeat(100))).toBe('busy')
        expect(await post(busy.url, 'x'.repeat(20))).toBe('20:' + 'x'.repeat(20))
      } finally {
        busy.close()
      }
      // What the reads held went back to the budget.
      expect(full.take(24)).toBe(true)
      expect(full.take(1)).toBe(false)
    }
  })
})

describe('BodyBudget.holds: a large answer read too slowly', () => {
  /** A response as holds() sees one: it can time out, be destroyed, and close. */
  function response() {
    const res = new EventEmitter() as EventEmitter & {
      setTimeout: () => unknown
      destroy: () => void
      destroyed: boolean
    }
    res.destroyed = false
    res.setTimeout = () => res
    res.destroy = () => {
      res.destroyed = true
      res.emit('close')
    }
    return res as unknown as ServerResponse & { destroyed: boolean }
  }

  it('is cut once stalledMs and what SLOWEST_READ would take have passed, its bytes given back', () => {
    vi.useFakeTimers()
    try {
      const budget = new BodyBudget(1024 * 1024, 1000)
      const slow = response()
      const bytes = 10 * SLOWEST_READ
      expect(budget.holds(bytes, slow)).toBe(true)
      expect(budget.take(1024 * 1024 - bytes + 1)).toBe(false)
      vi.advanceTimersByTime(1000 + 10_000 - 1)
      expect(slow.destroyed).toBe(false)
      vi.advanceTimersByTime(1)
      expect(slow.destroyed).toBe(true)
      expect(budget.take(1024 * 1024)).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('an answer sent in time is not cut later, and gives its bytes back once', () => {
    vi.useFakeTimers()
    try {
      const budget = new BodyBudget(1024 * 1024, 1000)
      const sent = response()
      expect(budget.holds(HELD_FROM, sent)).toBe(true)
      sent.emit('close')
      vi.advanceTimersByTime(60_000)
      expect(sent.destroyed).toBe(false)
      expect(budget.take(1024 * 1024)).toBe(true)
      expect(budget.take(1)).toBe(false)
    } finally {
      vi.useRealTimers()
    }
  })
})
