import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const as = (id: string) => ({ headers: { 'x-sandbox-id': id } })

describe('isolation: X-Sandbox-Id', () => {
  it('gives each caller its own copy of the seeded data', async () => {
    await call('DELETE', '/users/5', as('worker-1'))
    expect((await call('GET', '/users/5', as('worker-1'))).status).toBe(404)
    expect((await call('GET', '/users/5', as('worker-2'))).status).toBe(200)
    expect((await call('GET', '/users/5')).status).toBe(200)
    expect(sandbox.db.users.get(5)).toBeDefined()
  })

  it('two sandboxes written in parallel never see each other', async () => {
    const write = (id: string, n: number) =>
      call('POST', '/users', {
        body: { name: `${id}-user-${n}`, email: `${id}-${n}@example.com` },
        ...as(id),
      })
    await Promise.all(
      Array.from({ length: 20 }, (_, n) => [write('alpha', n), write('beta', n)]).flat(),
    )
    for (const [id, other] of [
      ['alpha', 'beta'],
      ['beta', 'alpha'],
    ]) {
      const { list, total } = (await call('GET', '/users?sort=id&order=desc&pageSize=100', as(id!)))
        .body.data
      expect(total).toBe(70)
      const names: string[] = list.map((user: { name: string }) => user.name)
      expect(names.filter((name) => name.startsWith(`${id}-`))).toHaveLength(20)
      expect(names.some((name) => name.startsWith(`${other}-`))).toBe(false)
      const ids = list.slice(0, 20).map((user: { id: number }) => user.id)
      expect(new Set(ids)).toEqual(new Set(Array.from({ length: 20 }, (_, n) => 51 + n)))
    }
    expect(sandbox.db.users.size).toBe(50)
  })

  it('scopes sessions and the journal too', async () => {
    const signIn = await call('POST', '/sessions', {
      token: null,
      body: { email: 'admin@example.com', password: 'password' },
      ...as('a'),
    })
    const token = signIn.body.data.token
    expect((await call('GET', '/users/1', { token, ...as('a') })).status).toBe(200)
    expect((await call('GET', '/users/1', { token, ...as('b') })).status).toBe(401)
    const journal = (await call('GET', '/__sandbox/requests', { token: null, ...as('b') })).body
      .data
    expect(journal.list.map((entry: { path: string }) => entry.path)).toEqual(['/users/1'])
  })

  it.each(['', 'has space', 'x'.repeat(65), 'ünicode', 'a/b'])(
    'X-Sandbox-Id: %j is 400 / 40000',
    async (id) => {
      const reply = await call('GET', '/users/1', as(id))
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({
        code: 40000,
        message: expect.stringContaining('X-Sandbox-Id'),
      })
    },
  )

  it('accepts 1-64 of A-Z a-z 0-9 _ . -', async () => {
    expect((await call('GET', '/users/1', as('Worker_1.test-A'))).status).toBe(200)
    expect((await call('GET', '/users/1', as('x'.repeat(64)))).status).toBe(200)
  })

  it('in code, sandbox.instance(name) takes the names the header may give, and no other', () => {
    expect(sandbox.instance('Worker_1.test-A')).toBe(sandbox.instance('Worker_1.test-A'))
    expect(() => sandbox.instance('../../x')).toThrow(
      "Invalid sandbox name: must be 1-64 characters of A-Z a-z 0-9 _ . -, got '../../x'",
    )
    expect(() => sandbox.instance(5 as unknown as string)).toThrow(/got number$/)
    expect(() => sandbox.instance('x'.repeat(65))).toThrow(TypeError)
  })

  it('keeps at most maxSandboxes, dropping the least recently used', async () => {
    const small = createSandbox({ maxSandboxes: 2 })
    const del = (id: string) =>
      small.fetch('/users/5', {
        method: 'DELETE',
        headers: { authorization: 'Bearer sandbox-admin-token', 'x-sandbox-id': id },
      })
    const get = (id: string) =>
      small
        .fetch('/users/5', {
          headers: { authorization: 'Bearer sandbox-admin-token', 'x-sandbox-id': id },
        })
        .then((r) => r.status)
    await del('one')
    await del('two')
    expect(await get('one')).toBe(404)
    await del('three')
    expect(await get('one')).toBe(404)
    expect(await get('two')).toBe(200)
  })

  it('never drops a sandbox a request is still being answered in: its write answered 201 is kept', async () => {
    const small = createSandbox({ maxSandboxes: 2 })
    const send = (id: string, method: string, path: string, extra: Record<string, string> = {}) =>
      small.fetch(path, {
        method,
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
          'x-sandbox-id': id,
          ...extra,
        },
        ...(method === 'POST' ? { body: '{"name":"kept","email":"kept@example.com"}' } : {}),
      })
    // The write waits 300 ms in `slow` while three other sandboxes are made, one past the two.
    const written = send('slow', 'POST', '/users', { 'x-sandbox-delay': '300' })
    for (const id of ['b', 'c', 'd']) expect((await send(id, 'GET', '/users/1')).status).toBe(200)
    const created = await written
    expect(created.status).toBe(201)
    const { id } = ((await created.json()) as { data: { id: number } }).data
    const read = await send('slow', 'GET', `/users/${id}`)
    expect(read.status).toBe(200)
    expect(((await read.json()) as { data: { name: string } }).data.name).toBe('kept')
    // Once answered it is an ordinary sandbox again: the least recently used, dropped next.
    for (const other of ['e', 'f', 'g']) await send(other, 'GET', '/users/1')
    expect((await send('slow', 'GET', `/users/${id}`)).status).toBe(404)
  })

  it('refuses a new sandbox past maxSandboxes while every one is answering a request: 429, then room once they are done', async () => {
    const small = createSandbox({ maxSandboxes: 2 })
    const get = (id: string, extra: Record<string, string> = {}) =>
      small.fetch('/users/1', {
        headers: { authorization: 'Bearer sandbox-admin-token', 'x-sandbox-id': id, ...extra },
      })
    const held = ['a', 'b'].map((id) => get(id, { 'x-sandbox-delay': '300' }))
    const refused = await get('c')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    const body = (await refused.json()) as { code: number; message: string }
    expect(body.code).toBe(42900)
    expect(body.message).toContain('--max-sandboxes 2')
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(200)
    expect((await get('c')).status).toBe(200)
  })
})

describe('the sandboxes memory budget', () => {
  it('is not outgrown by filling sandboxes and holding each with a request: past it, 429 until the held one is answered', async () => {
    const budget = 1024 * 1024
    const sandboxes = createSandbox({ sandboxesMemory: budget })
    const send = (id: string, method: string, path: string, extra: RequestInit = {}) =>
      sandboxes.fetch(path, {
        method,
        ...extra,
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
          'x-sandbox-id': id,
          ...(extra.headers as Record<string, string>),
        },
      })
    const at = '2026-01-01T00:00:00.000Z'
    const users = Array.from({ length: 1500 }, (_, n) => ({
      id: n + 1,
      name: `user-${n + 1}`,
      email: `user${n + 1}@example.com`,
      status: 'active',
      role: n === 0 ? 'admin' : 'member',
      createdAt: at,
      updatedAt: at,
    }))
    const document = JSON.stringify({ users, products: [], orders: [] })
    const fill = async (id: string) =>
      expect((await send(id, 'PUT', '/__sandbox/db', { body: document })).status).toBe(200)
    // Each filled sandbox is more than half the budget: two are over it.
    await fill('first')
    expect(sandboxes.instance('first').estimatedBytes).toBeGreaterThan(budget / 2)
    const holding = send('first', 'GET', '/users/1500', { headers: { 'x-sandbox-delay': '300' } })
    // Made while the two held less than the budget; now over it, with the first one held.
    await fill('second')
    const refused = await send('second', 'GET', '/users/1')
    expect(refused.status).toBe(429)
    const body = (await refused.json()) as { code: number; message: string }
    expect(body.code).toBe(42900)
    expect(body.message).toContain('--sandboxes-memory 1 MB')
    // The held request is answered in its sandbox, from its data; then there is room again.
    const held = await holding
    expect(held.status).toBe(200)
    expect((await send('third', 'GET', '/users/1')).status).toBe(200)
  })

  it('counts at least what a sandbox holds: in the big scenario, read, then written to every table', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const sandboxes = createSandbox({ baseUrl: 'http://shop.test', maxSandboxes: 100 })
    const send = (id: string, method: string, path: string, body?: unknown) =>
      sandboxes.fetch(`http://shop.test${path}`, {
        method,
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
          'x-sandbox-id': id,
          'x-sandbox-scenario': 'big',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const read = async (id: string) => {
      expect((await send(id, 'GET', '/users/1')).status).toBe(200)
    }
    const written = async (id: string) => {
      expect(
        (await send(id, 'POST', '/users', { name: id, email: `${id}@example.com` })).status,
      ).toBe(201)
      const order = { items: [{ productId: 1, quantity: 1 }] }
      expect((await send(id, 'POST', '/users/3/orders', order)).status).toBe(201)
    }
    // The scenario's data made and its indexes kept (the second load) before measuring.
    for (const id of ['warm-1', 'warm-2', 'warm-3']) await written(id)
    for (const [kind, use] of [
      ['read', read],
      ['written', written],
    ] as const) {
      gc()
      const before = process.memoryUsage().heapUsed
      const ids = Array.from({ length: 20 }, (_, n) => `${kind}-${n}`)
      for (const id of ids) await use(id)
      gc()
      const held = (process.memoryUsage().heapUsed - before) / ids.length
      const estimate = sandboxes.instance(ids[0]).estimatedBytes
      // The estimate is the budget: it may count more than is held (eviction comes sooner),
      // not less. Without the groups' own cost: 1.67 MB counted, 2.28 MB held once written.
      expect(estimate, `${kind}: ${(held / 1e6).toFixed(2)} MB held`).toBeGreaterThanOrEqual(held)
    }
  })
})
