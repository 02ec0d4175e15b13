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
})
