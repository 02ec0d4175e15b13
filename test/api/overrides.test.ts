import { describe, expect, it } from 'vitest'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const override = (body: unknown) => call('POST', '/__sandbox/overrides', { body, token: null })

describe('CONTRACT C2: overrides', () => {
  it('a counted override on a route template answers twice, then the API answers again', async () => {
    const created = await override({
      method: 'GET',
      path: '/users/{user_id}',
      times: 2,
      response: { status: 503 },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      id: 1,
      method: 'GET',
      path: '/users/{user_id}',
      times: 2,
      remaining: 2,
    })
    for (const id of [3, 4]) {
      const reply = await call('GET', `/users/${id}`)
      expect(reply.status).toBe(503)
      expect(reply.body).toEqual({ code: 50300, message: 'service unavailable', data: null })
    }
    expect((await call('GET', '/users/3')).status).toBe(200)
    expect((await call('GET', '/__sandbox/overrides', { token: null })).body.data.total).toBe(0)
  })

  it('authentication and permission still come first on an API path', async () => {
    await override({ path: '/users/{user_id}', response: { status: 200, data: { id: 0 } } })
    expect((await call('GET', '/users/3', { token: null })).status).toBe(401)
    expect((await call('DELETE', '/users/3', { token: MEMBER })).status).toBe(403)
    expect((await call('GET', '/users/3', { overridden: true })).body).toEqual({
      code: 0,
      message: 'success',
      data: { id: 0 },
    })
  })

  it('a success envelope with headers and a delay; an overridden write changes no data', async () => {
    await override({
      method: 'POST',
      path: '/users',
      response: {
        status: 201,
        data: { id: 999 },
        headers: { 'X-Stubbed': 'yes', Location: '/users/999' },
        delayMs: 30,
      },
    })
    const started = performance.now()
    const reply = await call('POST', '/users', {
      body: { name: 'never', email: 'never@example.com' },
      overridden: true,
    })
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
    expect(reply.status).toBe(201)
    expect(reply.headers.get('x-stubbed')).toBe('yes')
    expect(reply.headers.get('location')).toBe('/users/999')
    expect(reply.body).toEqual({ code: 0, message: 'success', data: { id: 999 } })
    expect(sandbox.db.users.size).toBe(50)
  })

  it('matches the query, and the newest matching override wins', async () => {
    await override({
      path: '/users',
      query: { status: 'active' },
      response: { status: 200, data: 'older' },
    })
    await override({
      path: '/users',
      query: { status: 'active' },
      response: { status: 200, data: 'newer' },
    })
    expect((await call('GET', '/users?status=active&page=1', { overridden: true })).body.data).toBe(
      'newer',
    )
    expect((await call('GET', '/users?status=inactive')).body.data.list).toBeDefined()
    expect((await call('GET', '/users')).body.data.total).toBe(50)
  })

  it('a stub for a path the API lacks answers without a token, with a raw body', async () => {
    await override({
      method: 'GET',
      path: '/users/{user_id}/avatar',
      response: { status: 200, body: { url: 'x.png' } },
    })
    const reply = await call('GET', '/users/5/avatar', { token: null, overridden: true })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ url: 'x.png' })
    expect((await call('GET', '/users/5/other', { token: null })).status).toBe(404)
  })

  it('an error envelope takes the given code and message, or the status’s own', async () => {
    await override({
      path: '/products',
      response: { status: 409, code: 40003, message: 'SKU taken (stub)' },
    })
    expect((await call('POST', '/products', { body: {} })).body).toEqual({
      code: 40003,
      message: 'SKU taken (stub)',
      data: null,
    })
    await override({ path: '/orders', response: { status: 429 } })
    const limited = await call('GET', '/orders')
    expect(limited.body).toEqual({ code: 42900, message: 'rate limit exceeded', data: null })
    // A code of the API without a message says the code's own words.
    await override({ method: 'POST', path: '/users', response: { status: 409, code: 40002 } })
    expect((await call('POST', '/users', { body: {} })).body).toEqual({
      code: 40002,
      message: 'Email already registered',
      data: null,
    })
  })

  it('drop resets the connection (MSW: a network error)', async () => {
    await override({ path: '/users/1', response: { drop: true } })
    await expect(call('GET', '/users/1')).rejects.toThrow()
  })

  it('a 1xx is taken (100-599) and, no final answer, is a network error through MSW; the journal keeps it', async () => {
    const made = await override({ path: '/users/1', times: 1, response: { status: 103 } })
    expect(made.status).toBe(201)
    await expect(call('GET', '/users/1')).rejects.toThrow()
    const journal = await call('GET', '/__sandbox/requests?status=103', { token: null })
    expect(journal.body.data.total).toBe(1)
    expect(journal.body.data.list[0].overrideId).toBe(made.body.data.id)
    for (const status of [99, 600])
      expect((await override({ path: '/users/1', response: { status } })).body.message).toBe(
        'validation failed: response.status: must be from 100 to 599',
      )
  })

  it('lists oldest first, removes one (404 when unknown) or all; DELETE /__sandbox/db leaves them', async () => {
    const first = (await override({ path: '/a', response: { status: 200 } })).body.data
    await override({ path: '/b', times: 3, response: { status: 200 } })
    await call('DELETE', '/__sandbox/db', { token: null })
    const listed = (await call('GET', '/__sandbox/overrides', { token: null })).body.data
    expect(listed.list.map((item: { path: string }) => item.path)).toEqual(['/a', '/b'])
    expect(listed.list[1].remaining).toBe(3)
    expect((await call('DELETE', `/__sandbox/overrides/${first.id}`, { token: null })).status).toBe(
      204,
    )
    const unknown = await call('DELETE', `/__sandbox/overrides/${first.id}`, { token: null })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe(40400)
    expect((await call('DELETE', '/__sandbox/overrides/nope', { token: null })).status).toBe(404)
    expect((await call('DELETE', '/__sandbox/overrides', { token: null })).status).toBe(204)
    expect((await call('GET', '/__sandbox/overrides', { token: null })).body.data.total).toBe(0)
  })

  it.each([
    [{ response: { status: 200 } }, 'path'],
    [{ path: 'users', response: { status: 200 } }, 'path'],
    [{ path: '/users', response: { status: 99 } }, 'response'],
    [{ path: '/users', times: 0, response: { status: 200 } }, 'times'],
    [{ path: '/users', method: 'FETCH', response: { status: 200 } }, 'method'],
    [{ path: '/users', response: { status: 200, delayMs: 70000 } }, 'response'],
    [{ path: '/users', response: { status: 200 }, extra: 1 }, 'extra'],
  ])('a bad override (%j) is 422 / 42200 naming %s', async (body, field) => {
    const reply = await override(body)
    expect(reply.status).toBe(422)
    expect(reply.body.code).toBe(42200)
    expect(reply.body.message).toContain(field)
  })

  it('the journal marks overrideId, and filters by method, path (concrete or template) and status', async () => {
    const id = (
      await override({
        method: 'POST',
        path: '/users/{user_id}/orders',
        times: 1,
        response: { status: 503 },
      })
    ).body.data.id
    await call('POST', '/users/3/orders', { body: { items: [{ productId: 1, quantity: 1 }] } })
    await call('GET', '/users/3/orders')
    await call('GET', '/users/4')
    const sent = await call('GET', '/__sandbox/requests?method=POST&path=/users/{user_id}/orders', {
      token: null,
    })
    expect(sent.body.data.total).toBe(1)
    expect(sent.body.data.list[0]).toMatchObject({
      method: 'POST',
      path: '/users/3/orders',
      status: 503,
      overrideId: id,
      // What the client sent is there to check, though the override answered.
      requestBody: { items: [{ productId: 1, quantity: 1 }] },
    })
    expect(
      (await call('GET', '/__sandbox/requests?path=/users/4', { token: null })).body.data.total,
    ).toBe(1)
    expect(
      (await call('GET', '/__sandbox/requests?status=200', { token: null })).body.data.total,
    ).toBe(2)
    expect((await call('GET', '/__sandbox/requests?status=abc', { token: null })).status).toBe(400)
  })

  it('DELETE /__sandbox resets everything of that sandbox: data, journal, overrides, settings', async () => {
    const as = { headers: { 'x-sandbox-id': 'full-reset' } }
    await call('POST', '/__sandbox/overrides', {
      ...as,
      token: null,
      body: { path: '/nothing', response: { status: 200 } },
    })
    await call('PATCH', '/__sandbox/config', { ...as, token: null, body: { delay: 5 } })
    await call('DELETE', '/users/9', as)
    expect((await call('DELETE', '/__sandbox', { ...as, token: null })).status).toBe(204)
    const info = (await call('GET', '/__sandbox', { ...as, token: null })).body.data
    expect(info).toMatchObject({ counts: { users: 50 }, requests: 0, config: { delay: 0 } })
    expect(
      (await call('GET', '/__sandbox/overrides', { ...as, token: null })).body.data.total,
    ).toBe(0)
    expect(sandbox.db.users.size).toBe(50)
  })

  it('the same in code: override() with remove(), overrides, requests({ method, path, status })', async () => {
    expect(() => sandbox.override({ path: 'nope', response: { status: 200 } } as never)).toThrow(
      /Invalid override: path/,
    )
    const down = sandbox.override({ method: 'GET', path: '/products', response: { status: 500 } })
    expect(sandbox.overrides.map((item) => item.id)).toEqual([down.id])
    expect((await call('GET', '/products')).status).toBe(500)
    expect(down.remove()).toBe(true)
    expect((await call('GET', '/products')).status).toBe(200)
    expect(sandbox.requests({ method: 'GET', path: '/products', status: 500 })).toHaveLength(1)
    expect(sandbox.requests({ path: '/products' })).toHaveLength(2)
  })
})

describe('CONTRACT C1, C2: the journal and OPTIONS', () => {
  it('an OPTIONS a stub answers is journaled with its overrideId; a CORS preflight is not journaled', async () => {
    const created = await override({
      method: 'OPTIONS',
      path: '/stubopt',
      times: 1,
      response: { status: 200, data: 'opt' },
    })
    const id = (created.body as { data: { id: number } }).data.id
    expect((await sandbox.fetch('/stubopt', { method: 'OPTIONS' })).status).toBe(200)
    const preflight = await sandbox.fetch('/users', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(sandbox.requests({ method: 'OPTIONS' })).toEqual([
      expect.objectContaining({ path: '/stubopt', status: 200, overrideId: id }),
    ])
  })
})

describe('overrides in code', () => {
  it('sandbox.override() and sandbox.overrides give frozen copies: changing one changes nothing stored', async () => {
    const stored = sandbox.override({ path: '/frozen', response: { status: 204 } })
    expect(Object.isFrozen(stored)).toBe(true)
    expect(sandbox.overrides.every((one) => Object.isFrozen(one))).toBe(true)
    expect(() => {
      ;(stored as { path: string }).path = '/elsewhere'
    }).toThrow(TypeError)
    expect(sandbox.overrides.at(-1)?.path).toBe('/frozen')
    expect(stored.remove()).toBe(true)
  })
})
