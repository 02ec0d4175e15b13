import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { clientFor } from '../support/client.js'
import { API, useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox({ strict: true })

describe('strict mode', () => {
  it.each([
    ['/users?foo=1', "'foo'"],
    ['/users?page=1&foo=1&bar=2', "'foo', 'bar'"],
    ['/users/1?pageSize=5', "'pageSize'"],
    ['/orders?userId=2&x=1', "'x'"],
    ['/users/2/orders?userId=2', "'userId'"],
  ])('GET %s → 400 / 40000 naming %s', async (path, names) => {
    const reply = await call('GET', path)
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 40000, message: expect.stringContaining(names) })
  })

  it('a query on a route that takes none is a 400', async () => {
    const reply = await call('DELETE', '/users/5?hard=true')
    expect(reply.body.code).toBe(40000)
    expect(sandbox.db.users.get(5)).toBeDefined()
  })

  it('known parameters still work', async () => {
    expect(
      (
        await call(
          'GET',
          '/users?page=1&pageSize=2&sort=name&order=desc&fields=id&keyword=a&status=active',
        )
      ).status,
    ).toBe(200)
  })

  it.each([
    [
      { name: 'strict', email: 'strict@example.com', nickname: 'x' },
      'nickname: is not a known field (strict mode)',
    ],
    [{ name: 'strict', email: 'strict@example.com', id: 5 }, 'id: is read-only (strict mode)'],
    [
      { name: 'strict', email: 'strict@example.com', createdAt: '2020-01-01T00:00:00.000Z' },
      'createdAt: is read-only',
    ],
  ])('POST /users %j → 422 naming the field', async (body, message) => {
    const reply = await call('POST', '/users', { body })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(message)
  })

  it('names unknown and read-only fields inside order items too', async () => {
    const reply = await call('POST', '/users/2/orders', {
      body: { items: [{ productId: 1, quantity: 1, unitPrice: 0.01, gift: true }] },
    })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain('items[0].unitPrice: is read-only')
    expect(reply.body.message).toContain('items[0].gift: is not a known field')
  })

  it('can be switched off at run time', async () => {
    sandbox.configure({ strict: false })
    expect((await call('GET', '/users?foo=1')).status).toBe(200)
  })
  it('configure() in code refuses a field it does not know, __proto__ too, as PATCH /__sandbox/config does', () => {
    const before = sandbox.config
    expect(() => sandbox.configure({ delay: 5, bogus: 1 } as never)).toThrow(
      'Invalid settings: bogus: is not a known field',
    )
    expect(() => sandbox.configure(JSON.parse('{"__proto__":{"delay":5},"strict":true}'))).toThrow(
      'Invalid settings: __proto__: is not a known field',
    )
    expect(sandbox.config).toEqual(before)
  })
})

describe('auth off', () => {
  const open = createSandbox({ auth: false, baseUrl: API })
  const openCall = (method: string, path: string, options = {}) =>
    open.fetch(`${API}${path}`, { method, ...options }).then((r) => ({ status: r.status }))

  it('a request without a token acts as the admin', async () => {
    expect((await openCall('GET', '/users')).status).toBe(200)
    expect((await openCall('DELETE', '/orders/1')).status).toBe(204)
  })

  it('a token, when sent, still counts', async () => {
    expect(
      (
        await openCall('GET', '/users', {
          headers: { authorization: 'Bearer sandbox-member-token' },
        })
      ).status,
    ).toBe(403)
    expect(
      (await openCall('GET', '/users', { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401)
  })

  it('can be switched at run time through the control API', async () => {
    const viaControl = clientFor(API)
    expect(
      (await viaControl('PATCH', '/__sandbox/config', { token: null, body: { auth: false } }))
        .status,
    ).toBe(200)
    expect((await call('GET', '/users', { token: null })).status).toBe(200)
  })
})
