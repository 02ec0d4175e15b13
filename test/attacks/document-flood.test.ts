import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'

// Quality bar: memory bounds hold under a small heap (CONTRACT C3: past a bound, 429, never out
// of memory). The bytes of request bodies in flight are bounded as they arrive, but a data
// document takes ~5 times its text once parsed, checked and indexed: 32 clients each sending a
// valid 7.7 MB document to PUT /__sandbox/db ran a 512 MB server out of memory, eight of them
// read side by side. Documents are now read within room taken for what they become
// (resources/seed.ts documentRoom).
const cli = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))

/** A valid document of ~7.5 MB: the shop's users and products, orders of 50 items each. */
function documentOfOrders(): string {
  const { users, products } = createSandbox({ products: 1000 }).db.toJSON() as {
    users: Array<{ id: number }>
    products: Array<{ id: number; name: string; price: number }>
  }
  const createdAt = '2026-01-02T03:04:05.000Z'
  const orders = Array.from({ length: 1600 }, (_, index) => {
    const items = products.slice(0, 50).map((product) => ({
      productId: product.id,
      productName: product.name,
      quantity: 1,
      unitPrice: product.price,
    }))
    const cents = items.reduce((sum, item) => sum + Math.round(item.unitPrice * 100), 0)
    const at = createdAt
    return {
      id: index + 1,
      userId: 2,
      status: 'pending',
      items,
      total: cents / 100,
      createdAt: at,
      updatedAt: at,
    }
  })
  return JSON.stringify({ users, products, orders })
}

describe('many valid data documents at once under a 256 MB heap', () => {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=256', cli, 'serve', '--port', '0', '--quiet'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  afterAll(() => {
    child.kill()
  })

  it('are 200 or 429 / 42900 with Retry-After; the server never runs out of memory', async () => {
    const document = documentOfOrders()
    expect(document.length).toBeGreaterThan(7_000_000)
    let url = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      url ||= /http:\/\/127\.0\.0\.1:\d+/.exec(chunk)?.[0] ?? ''
    })
    while (!url) await once(child.stdout, 'data')
    const statuses: number[] = []
    let sent = 0
    const put = async () => {
      // Each to a sandbox of its own, as the attack did: those made stay (within their bound).
      const answer = await fetch(`${url}/__sandbox/db`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-sandbox-id': `flood-${sent++}` },
        body: document,
      })
      const body = (await answer.json()) as { code: number }
      statuses.push(answer.status)
      if (answer.status === 429) {
        expect(body.code).toBe(42900)
        expect(answer.headers.get('retry-after')).toMatch(/^\d+$/)
      } else expect(answer.status).toBe(200)
    }
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 32 }, put))
    expect(statuses).toContain(200)
    expect(statuses).toContain(429)
    // Still answering, with the last document's data.
    const info = await fetch(`${url}/__sandbox`)
    expect(info.status).toBe(200)
    expect(child.exitCode).toBeNull()
    expect(stderr).not.toMatch(/heap out of memory/)
  }, 120_000)
})
