import { describe, expect, it } from 'vitest'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()

describe('forced responses: Prefer: code=<status>', () => {
  it.each([
    [400, 40000],
    [401, 40101],
    [403, 40300],
    [404, 40400],
    [409, 40001],
    [422, 42200],
    [429, 42900],
    [500, 50000],
    [503, 50300],
  ])('code=%i answers %i with business code %i', async (status, code) => {
    const reply = await call('GET', '/users/1', { headers: { prefer: `code=${status}` } })
    expect(reply.status).toBe(status)
    expect(reply.body).toEqual({
      code,
      message: expect.stringContaining(`Prefer: code=${status}`),
      data: null,
    })
  })

  it.each([
    'code="500"',
    'return=representation, code="500"',
    'respond-async; wait=5, code=500;x="a,b"',
    'code=500, code=404',
    'CODE=500',
  ])(
    'reads Prefer as RFC 7240 does (%s): a forced error, and the write never runs',
    async (prefer) => {
      const reply = await call('POST', '/users', {
        headers: { prefer },
        body: { name: 'forced', email: 'forced@example.com' },
      })
      expect(reply.status).toBe(500)
      expect(reply.body).toMatchObject({ code: 50000, data: null })
      expect(sandbox.db.users.size).toBe(50)
    },
  )

  it('reads several Prefer headers as one list', async () => {
    const headers = new Headers([
      ['prefer', 'return=representation'],
      ['prefer', 'code="503"'],
    ])
    const reply = await call('DELETE', '/users/3', {
      headers: Object.fromEntries([['prefer', headers.get('prefer')!]]),
    })
    expect(reply.status).toBe(503)
    expect(sandbox.db.users.get(3)).toBeDefined()
  })

  it('adds Retry-After to 429 and WWW-Authenticate to 401', async () => {
    expect(
      (await call('GET', '/products', { headers: { prefer: 'code=429' } })).headers.get(
        'retry-after',
      ),
    ).toBe('1')
    expect(
      (await call('GET', '/products', { headers: { prefer: 'code=401' } })).headers.get(
        'www-authenticate',
      ),
    ).toBe('Bearer')
  })

  it('comes after authentication', async () => {
    const reply = await call('GET', '/users/1', { token: null, headers: { prefer: 'code=404' } })
    expect(reply.status).toBe(401)
  })

  it('comes before any effect: a forced POST or DELETE changes nothing', async () => {
    const before = sandbox.snapshot()
    await call('POST', '/users', {
      body: { name: 'forced', email: 'forced@example.com' },
      headers: { prefer: 'code=500' },
    })
    await call('DELETE', '/users/5', { headers: { prefer: 'code=503' } })
    expect(sandbox.db.toJSON()).toEqual({
      users: before.users,
      products: before.products,
      orders: before.orders,
    })
  })

  it('ignores unknown codes and sits beside other preferences', async () => {
    expect((await call('GET', '/users/1', { headers: { prefer: 'code=299' } })).status).toBe(200)
    expect((await call('GET', '/users/1', { headers: { prefer: 'code=abc' } })).status).toBe(200)
    const both = await call('DELETE', '/users/5', {
      headers: { prefer: 'return=representation, code=404' },
    })
    expect(both.status).toBe(404)
    const deleted = await call('DELETE', '/users/6', {
      headers: { prefer: 'return=representation' },
    })
    expect(deleted.status).toBe(200)
  })

  it('comes after permission and after an override (CONTRACT B4, C2: an override answers before anything else)', async () => {
    expect(
      (await call('GET', '/users', { token: MEMBER, headers: { prefer: 'code=503' } })).status,
    ).toBe(403)
    expect(
      (await call('GET', '/products', { token: MEMBER, headers: { prefer: 'code=503' } })).status,
    ).toBe(503)
    const data = { ...sandbox.db.users.get(3)!, name: 'overridden' }
    const stored = sandbox.override({
      method: 'GET',
      path: '/users/{user_id}',
      response: { status: 200, data },
    })
    try {
      const forced = await call('GET', '/users/3', { headers: { prefer: 'code=503' } })
      expect(forced.status).toBe(200)
      expect(forced.body).toEqual({ code: 0, message: 'success', data })
    } finally {
      stored.remove()
    }
  })

  it('is recorded in the journal like any request', async () => {
    await call('GET', '/products', { headers: { prefer: 'code=503' } })
    expect(sandbox.requests().at(-1)).toMatchObject({
      path: '/products',
      status: 503,
      responseCode: 50300,
    })
  })
})

describe('latency', () => {
  it('X-Sandbox-Delay delays one response by that many ms', async () => {
    const started = performance.now()
    const reply = await call('GET', '/users/1', { headers: { 'x-sandbox-delay': '120' } })
    expect(reply.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(115)
  })

  it.each(['-1', '60001', 'soon', '1.5', ''])(
    'X-Sandbox-Delay: %j is 400 / 40000',
    async (value) => {
      const reply = await call('GET', '/users/1', { headers: { 'x-sandbox-delay': value } })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({
        code: 40000,
        message: expect.stringContaining('X-Sandbox-Delay'),
      })
    },
  )

  it('a global delay applies to every API request; the header overrides it', async () => {
    sandbox.configure({ delay: 600 })
    let started = performance.now()
    await call('GET', '/users/1')
    expect(performance.now() - started).toBeGreaterThanOrEqual(590)
    started = performance.now()
    await call('GET', '/users/1', { headers: { 'x-sandbox-delay': '0' } })
    // Well under the global delay, with room for a busy machine.
    expect(performance.now() - started).toBeLessThan(300)
  })

  it('a range delay draws each delay within it', async () => {
    sandbox.configure({ delay: '30-60' })
    expect(sandbox.config.delay).toEqual({ min: 30, max: 60 })
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      await call('GET', '/users/1')
      const elapsed = performance.now() - started
      expect(elapsed).toBeGreaterThanOrEqual(28)
    }
  })
})
