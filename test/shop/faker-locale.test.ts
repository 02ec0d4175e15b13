import { base, en } from '@faker-js/faker'
import { describe, expect, it, vi } from 'vitest'
import { seedLocale } from '../../shop/faker-locale.js'
import { fakerLocaleSubset } from '../../scripts/faker-locale-subset.js'

describe("the seeder's slice of faker's en locale", () => {
  it('matches the installed faker (else run: npx tsx scripts/faker-locale.ts)', () => {
    expect(seedLocale()).toEqual(fakerLocaleSubset())
  })

  it('seeds byte-identical data to the full en + base locales', async () => {
    const sizes = [{}, { seed: 7, users: 400, products: 120, orders: 900 }]
    const { seedData } = await import('../../shop/index.js')
    const sliced = sizes.map((size) => JSON.stringify(seedData(size)))
    vi.resetModules()
    vi.doMock('../../shop/faker-locale.js', () => ({ seedLocale: () => ({ ...base, ...en }) }))
    const full = await import('../../shop/index.js')
    expect(full.seedData).not.toBe(seedData)
    sizes.forEach((size, i) => expect(JSON.stringify(full.seedData(size))).toBe(sliced[i]))
    vi.doUnmock('../../shop/faker-locale.js')
  })
})
