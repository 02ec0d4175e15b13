import { describe, expect, it } from 'vitest'
import { createSandbox, defineApi, shopApi } from '../../index.js'

// A seeded data set is the same bytes every time (CONTRACT C1), so the sandboxes of one API and
// options load one generated data set: a test file making a sandbox per test in `big` generates
// its 31,000 records once. The last two data sets asked for are kept per API.
describe('a generated data set serves every sandbox of the same API and options', () => {
  const [users, ...others] = shopApi.resources
  let calls = 0
  const api = defineApi({
    ...shopApi,
    resources: [
      {
        ...users!,
        seed: {
          ...users!.seed,
          generate: (context: Parameters<typeof users.seed.generate>[0]) => {
            calls++
            return users!.seed.generate(context)
          },
        },
      },
      ...others,
    ],
  })

  it('runs the seeders once per seed and counts, for the last two asked for', () => {
    const first = createSandbox({ api, users: 20 })
    const second = createSandbox({ api, users: 20 })
    expect(calls).toBe(1)
    expect(second.db.users.all()).toEqual(first.db.users.all())
    createSandbox({ api, users: 21 })
    createSandbox({ api, users: 20, seed: 7 })
    expect(calls).toBe(3)
    createSandbox({ api, users: 21 })
    expect(calls).toBe(3)
    // Three asked for since users: 20 with the default seed: it went first.
    createSandbox({ api, users: 20 })
    expect(calls).toBe(4)
  })

  it("one sandbox's writes never reach another loaded from the same data set", async () => {
    const writer = createSandbox({ api, users: 30 })
    const created = await writer.fetch('/users', {
      method: 'POST',
      headers: {
        authorization: 'Bearer sandbox-admin-token',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'Written Once', email: 'written@example.com' }),
    })
    expect(created.status).toBe(201)
    writer.db.products.delete(1)

    const reader = createSandbox({ api, users: 30 })
    expect(reader.db.users.size).toBe(30)
    expect(reader.db.users.findUnique('email', 'written@example.com')).toBeUndefined()
    expect(reader.db.products.get(1)).toBeDefined()
    const listed = await reader.fetch('/users?pageSize=1', {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(((await listed.json()) as { data: { total: number } }).data.total).toBe(30)
    // And a reset of the writer goes back to the generated data, not to what it wrote.
    writer.reset()
    expect(writer.db.users.size).toBe(30)
    expect(writer.db.products.get(1)).toEqual(reader.db.products.get(1))
  })
})
