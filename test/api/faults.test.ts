import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { createSandboxServer } from '../../node/index.js'

async function statuses(
  sandbox: ReturnType<typeof createSandbox>,
  count: number,
): Promise<number[]> {
  const seen: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await sandbox.fetch('/products', {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    seen.push(response.type === 'error' ? 0 : response.status)
  }
  return seen
}

describe('fault injection', () => {
  it('the same seed and error rate give the same sequence of statuses', async () => {
    const first = await statuses(createSandbox({ seed: 5, errorRate: 0.3 }), 60)
    const second = await statuses(createSandbox({ seed: 5, errorRate: 0.3 }), 60)
    expect(first).toEqual(second)
    expect(new Set(first)).toEqual(new Set([200, 500, 503]))
    const other = await statuses(createSandbox({ seed: 6, errorRate: 0.3 }), 60)
    expect(other).not.toEqual(first)
  })

  it('answers about the configured share with 500 / 50000 or 503 / 50300', async () => {
    const sandbox = createSandbox({ errorRate: 0.25 })
    const seen = await statuses(sandbox, 400)
    const failures = seen.filter((status) => status !== 200).length
    expect(failures).toBeGreaterThan(60)
    expect(failures).toBeLessThan(140)
    const failed = sandbox.requests().find((entry) => entry.status >= 500)!
    expect([50000, 50300]).toContain(failed.responseCode)
  })

  it('changing the rates at run time restarts the sequence, so runs stay reproducible', async () => {
    const sandbox = createSandbox({ seed: 9 })
    sandbox.configure({ errorRate: 0.5 })
    const first = await statuses(sandbox, 20)
    sandbox.configure({ errorRate: 0.5 })
    expect(await statuses(sandbox, 20)).toEqual(first)
  })

  it('a dropped request is a network error in-process, and changes nothing', async () => {
    const sandbox = createSandbox({ dropRate: 1 })
    await expect(
      sandbox.fetch('/users', {
        method: 'POST',
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'dropped', email: 'dropped@example.com' }),
      }),
    ).resolves.toMatchObject({ type: 'error' })
    expect(sandbox.db.users.size).toBe(50)
    expect(sandbox.requests().at(-1)).toMatchObject({ status: 0, responseCode: null })
  })

  it('a dropped request resets the socket over HTTP, and the server keeps serving', async () => {
    const server = await createSandboxServer({ port: 0, dropRate: 1 })
    try {
      const admin = { authorization: 'Bearer sandbox-admin-token' }
      await expect(fetch(`${server.url}/products`, { headers: admin })).rejects.toThrow()
      // Only a request the API would carry out meets a fault: a 401 stays a 401.
      expect((await fetch(`${server.url}/products`)).status).toBe(401)
      server.sandbox.configure({ dropRate: 0 })
      expect((await fetch(`${server.url}/products`, { headers: admin })).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('comes after routing, authentication, permission and overrides: a 404, 401 or 403 is never a fault, an override answers', async () => {
    const sandbox = createSandbox({ errorRate: 1 })
    const member = { authorization: 'Bearer sandbox-member-token' }
    expect((await sandbox.fetch('/nothing-here')).status).toBe(404)
    expect((await sandbox.fetch('/products')).status).toBe(401)
    expect((await sandbox.fetch('/users', { headers: member })).status).toBe(403)
    expect((await sandbox.fetch('/products', { headers: member })).status).toBeGreaterThan(499)
    sandbox.override({ method: 'GET', path: '/products', response: { status: 200, data: [] } })
    const overridden = await sandbox.fetch('/products', { headers: member })
    expect(overridden.status).toBe(200)
    expect(await overridden.json()).toEqual({ code: 0, message: 'success', data: [] })
  })

  it('rejects rates outside 0..1', () => {
    expect(() => createSandbox({ errorRate: 1.5 })).toThrow('errorRate')
    expect(() => createSandbox({ dropRate: -0.1 })).toThrow('dropRate')
  })
})
