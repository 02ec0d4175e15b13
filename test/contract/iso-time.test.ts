import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EARLIEST, isoTime, LATEST } from '../../contract/iso-time.js'

/** The seed's timestamps are formatted by hand (faster): the very text Date gives, always. */
describe('isoTime', () => {
  const dated = (ms: number) => new Date(ms).toISOString()

  it('writes what toISOString writes for every millisecond of years 0 to 9999 (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: EARLIEST, max: LATEST }), (ms) => {
        expect(isoTime(ms)).toBe(dated(ms))
      }),
      { numRuns: 20_000 },
    )
  })

  it('at the edges: years, leap days, months, the day and the epoch', () => {
    const edges = [
      EARLIEST,
      LATEST,
      0,
      -1,
      Date.UTC(1600, 1, 29),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.parse('2026-01-01T00:00:00.000Z'),
    ]
    for (const ms of edges) expect(isoTime(ms)).toBe(dated(ms))
  })

  it('outside those years, or not a whole millisecond, as Date does it', () => {
    for (const ms of [EARLIEST - 1, LATEST + 1, -8.64e15, 8.64e15, 1.5, -0.5])
      expect(isoTime(ms)).toBe(dated(ms))
    expect(() => isoTime(Number.NaN)).toThrow(RangeError)
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError)
  })

  // Joined from its parts, each timestamp stayed a tree of them (~310 bytes where Date's text
  // takes 40): the settled memory of a 100,000-user server grew from 195 to 301 MB.
  it('keeps a timestamp in as few bytes as the text of Date does', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const held = (format: (ms: number) => string) => {
      const kept: string[] = Array.from({ length: 100_000 }, () => '')
      gc()
      const before = process.memoryUsage().heapUsed
      for (let i = 0; i < kept.length; i++) kept[i] = format(1.7e12 + i * 7919)
      gc()
      const bytes = (process.memoryUsage().heapUsed - before) / kept.length
      expect(kept[99_999]).toBe(dated(1.7e12 + 99_999 * 7919))
      return bytes
    }
    const date = held(dated)
    expect(held(isoTime)).toBeLessThan(date * 1.5 + 8)
  })
})
