import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'

// CONTRACT C3: nothing a request sends runs the process out of memory. The default sandbox
// cannot be evicted as X-Sandbox-Id ones are, so what its writes add is bounded: past
// `writtenBytes` a write that adds data is 429 / 42900; deletes and resets still go through,
// and room made by deleting is found again. (Before: 64 clients posting orders of 50 items with
// the public admin token ran a 512 MB server out of heap in a minute.)
const admin = {
  authorization: 'Bearer sandbox-admin-token',
  'content-type': 'application/json',
}

describe('what writes add to a sandbox is bounded (--written-bytes)', () => {
  it('an order of 50 items is counted by what it holds, and past the bound writes are 429', async () => {
    const sandbox = createSandbox({ writtenBytes: 1024 * 1024 })
    const post = (path: string, body: unknown) =>
      sandbox.fetch(path, { method: 'POST', headers: admin, body: JSON.stringify(body) })
    const products: number[] = []
    for (let i = 0; i < 50; i++) {
      const created = await post('/products', {
        name: `${'N'.repeat(97)}${String(i).padStart(3, '0')}`,
        sku: `BIG-${i}`,
        price: 9999.99,
        stock: 1_000_000,
      })
      expect(created.status).toBe(201)
      products.push(((await created.json()) as { data: { id: number } }).data.id)
    }
    const items = products.map((productId) => ({ productId, quantity: 1 }))
    let accepted = 0
    let refused: Response | undefined
    for (let i = 0; i < 400 && !refused; i++) {
      const reply = await post('/orders', { userId: 1, items })
      if (reply.status === 201) accepted++
      else refused = reply
    }
    // Each answer holds 50 names of 100 characters: ~8 KB, counted three times over.
    expect(accepted).toBeGreaterThan(10)
    expect(accepted).toBeLessThan(100)
    expect(refused?.status).toBe(429)
    const body = (await refused!.json()) as { code: number; message: string; data: null }
    expect(body.code).toBe(42900)
    expect(body.data).toBeNull()
    expect(body.message).toMatch(
      /^this sandbox's data grew by about \d+ MB through writes, the most it takes \(--written-bytes, 1 MB\); delete some records, or reset it/,
    )
    // Reads and deletes go on; a reset makes room.
    expect((await sandbox.fetch('/orders?pageSize=1', { headers: admin })).status).toBe(200)
    const deleted = await sandbox.fetch('/orders/1', { method: 'DELETE', headers: admin })
    expect(deleted.status).toBeLessThan(300)
    sandbox.reset()
    expect((await post('/users', { name: 'After Reset', email: 'after@example.com' })).status).toBe(
      201,
    )
  })

  it('room made by deleting is found again: a long-lived sandbox is not refused for what it wrote and deleted', async () => {
    const sandbox = createSandbox({ writtenBytes: 1024 * 1024 })
    const body = (i: number) =>
      JSON.stringify({ name: `Churn ${'x'.repeat(38)} ${i}`, email: `churn-${i}@example.com` })
    // ~2,500 creates, each deleted again: several times the bound, counted as it goes.
    for (let i = 0; i < 2500; i++) {
      const created = await sandbox.fetch('/users', {
        method: 'POST',
        headers: admin,
        body: body(i),
      })
      expect(created.status).toBe(201)
      const { id } = ((await created.json()) as { data: { id: number } }).data
      const deleted = await sandbox.fetch(`/users/${id}`, { method: 'DELETE', headers: admin })
      expect(deleted.status).toBeLessThan(300)
    }
    expect(sandbox.db.users.size).toBe(50)
  })

  it('a bound below a mebibyte, or not a size, is refused naming the option', () => {
    expect(() => createSandbox({ writtenBytes: 1000 })).toThrow(/writtenBytes/)
  })
})
