import { describe, expect, it } from 'vitest'
import type { DbDocument } from '../../index.js'
import { createSandbox } from '../../index.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const control = (
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) => call(method, `/__sandbox${path}`, { token: null, ...options })

describe('control API: /__sandbox/db', () => {
  it('GET returns { users, products, orders, nextIds } exactly as stored, without a token', async () => {
    const reply = await control('GET', '/db')
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual(sandbox.db.snapshot())
    expect(Object.keys(reply.body.data)).toEqual(['users', 'products', 'orders', 'nextIds'])
    expect(reply.body.data.nextIds).toEqual({ users: 51, products: 31, orders: 101 })
  })

  it('GET ?limit=N gives each resource’s first N records and the id sequences; a bad limit is 400 naming it', async () => {
    const whole = sandbox.db.snapshot()
    const reply = await control('GET', '/db?limit=2')
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({
      users: whole.users.slice(0, 2),
      products: whole.products.slice(0, 2),
      orders: whole.orders.slice(0, 2),
      nextIds: whole.nextIds,
    })
    for (const bad of ['0', 'x', '-1'])
      expect((await control('GET', `/db?limit=${bad}`)).body).toMatchObject({
        code: 40000,
        message: expect.stringContaining('limit'),
      })
  })

  const createUser = async (name: string) =>
    (await call('POST', '/users', { body: { name, email: `${name}@example.com` } })).body.data.id

  it('PUT replaces all three after validation; without nextIds the sequences stay (B1: no id reused)', async () => {
    const document = (await control('GET', '/db')).body.data
    const small = {
      users: document.users.slice(0, 3),
      products: document.products.slice(0, 2),
      orders: [],
    }
    const reply = await control('PUT', '/db', { body: small })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ users: 3, products: 2, orders: 0 })
    expect((await call('GET', '/users?pageSize=1')).body.data.total).toBe(3)
    expect(await createUser('after-put')).toBe(51)
    // With nextIds given, they are taken as they are (a snapshot restored exactly).
    await control('PUT', '/db', {
      body: { ...small, nextIds: { users: 4, products: 3, orders: 1 } },
    })
    expect(await createUser('exact')).toBe(4)
  })

  it('a download loaded back keeps the sequences: delete the highest id, GET, PUT, create (issue 30)', async () => {
    await call('DELETE', '/users/50')
    const document = (await control('GET', '/db')).body.data
    expect((await control('PUT', '/db', { body: document })).status).toBe(200)
    expect(await createUser('not-fifty')).toBe(51)
  })

  it.each([
    [
      (d: DbDocument) => ({
        ...d,
        users: [{ ...d.users[0]!, email: 'nope' }, ...d.users.slice(1)],
      }),
      'users[0].email: must be a valid e-mail address',
    ],
    [
      (d: DbDocument) => ({ ...d, users: [...d.users, { ...d.users[4]!, id: 999 }] }),
      "users[50].name: '",
    ],
    [
      (d: DbDocument) => ({ ...d, orders: [{ ...d.orders[0]!, userId: 999 }] }),
      'orders[0].userId: user 999 does not exist',
    ],
    [
      (d: DbDocument) => ({
        ...d,
        orders: [{ ...d.orders[0]!, items: [{ ...d.orders[0]!.items[0]!, productId: 999 }] }],
      }),
      'orders[0].items[0].productId: product 999 does not exist',
    ],
    [
      (d: DbDocument) => ({ ...d, orders: [{ ...d.orders[0]!, total: d.orders[0]!.total + 1 }] }),
      'orders[0].total: must be',
    ],
    [(d: DbDocument) => ({ users: d.users, products: d.products }), 'orders: is required'],
    // A collection the API lacks: refused, not dropped without a word (a data file is too).
    [
      (d: DbDocument) => ({ ...d, widgets: [] }),
      'widgets: is not a collection of this API (users, products and orders)',
    ],
    [
      (d: DbDocument) => JSON.parse(`{"__proto__":[],${JSON.stringify(d).slice(1)}`),
      '__proto__: is not a collection of this API',
    ],
  ])('PUT with a bad record is 422 naming it, and nothing changes (%#)', async (spoil, message) => {
    const before = sandbox.db.toJSON()
    const reply = await control('PUT', '/db', {
      body: spoil((await control('GET', '/db')).body.data),
    })
    expect(reply.status).toBe(422)
    expect(reply.body).toMatchObject({ code: 42200, message: expect.stringContaining(message) })
    expect(sandbox.db.toJSON()).toEqual(before)
  })

  it('PUT takes back the envelope GET answered (curl -o backup.json, then --data-binary @backup.json)', async () => {
    const download = (await control('GET', '/db')).body
    await call('DELETE', '/users/9')
    const put = await control('PUT', '/db', { body: download })
    expect(put.status).toBe(200)
    expect(put.body.data).toEqual({ users: 50, products: 30, orders: 100 })
    expect(sandbox.db.users.get(9)).toBeDefined()
    // Anything more than an envelope is a document, checked as one.
    const refused = await control('PUT', '/db', { body: { ...download, extra: 1 } })
    expect(refused.status).toBe(422)
  })

  it('DELETE resets to the seeded state', async () => {
    const seeded = sandbox.db.toJSON()
    await call('DELETE', '/users/7')
    await call('POST', '/products', { body: { name: 'x', sku: 'XXX', price: 1, stock: 1 } })
    expect((await control('DELETE', '/db')).status).toBe(204)
    expect(sandbox.db.toJSON()).toEqual(seeded)
  })
})

describe('control API: /__sandbox/requests', () => {
  it('records API requests oldest first, without secrets, and not its own requests', async () => {
    await call('GET', '/users?page=2', { headers: { 'x-request-id': 'r1' } })
    await call('POST', '/sessions', {
      token: null,
      body: { email: 'admin@example.com', password: 'password' },
    })
    await control('GET', '/config')
    const { body } = await control('GET', '/requests')
    expect(body.data).toMatchObject({ total: 2, page: 1, pageSize: 20 })
    const [first, second] = body.data.list
    expect(first).toEqual({
      id: 1,
      at: expect.stringMatching(/Z$/),
      method: 'GET',
      path: '/users',
      query: { page: '2' },
      status: 200,
      durationMs: expect.any(Number),
      responseBody: expect.objectContaining({ code: 0, message: 'success' }),
      responseCode: 0,
      // CONTRACT C5: the scenario it was answered in.
      scenario: 'default',
      // CONTRACT C2: the headers, the token redacted to its scheme.
      requestHeaders: expect.objectContaining({
        authorization: 'Bearer ***',
        'x-request-id': 'r1',
      }),
      responseHeaders: expect.objectContaining({
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': 'r1',
      }),
    })
    expect(second).toMatchObject({
      method: 'POST',
      path: '/sessions',
      status: 201,
      requestBody: { email: 'admin@example.com', password: '[redacted]' },
      responseBody: { code: 0, data: { token: '[redacted]' } },
    })
    expect(JSON.stringify(body)).not.toMatch(/sbx_/)
    expect(JSON.stringify(body)).not.toContain('sandbox-admin-token')
  })

  it('keeps the last 1,000', async () => {
    for (let i = 0; i < 1005; i++) await call('GET', `/users/1?i=${i}`)
    const { body } = await control('GET', '/requests?page=1&pageSize=1')
    expect(body.data.total).toBe(1000)
    expect(body.data.list[0].query).toEqual({ i: '5' })
  })

  it('DELETE clears it', async () => {
    await call('GET', '/users/1')
    expect((await control('DELETE', '/requests')).status).toBe(204)
    expect((await control('GET', '/requests')).body.data.total).toBe(0)
  })
})

describe('control API: /__sandbox/config', () => {
  it('GET returns the settings', async () => {
    expect((await control('GET', '/config')).body.data).toEqual({
      delay: 0,
      errorRate: 0,
      dropRate: 0,
      strict: false,
      auth: true,
    })
  })

  it('PATCH changes them for that sandbox only', async () => {
    const reply = await control('PATCH', '/config', {
      body: { strict: true, delay: '10-20' },
      headers: { 'x-sandbox-id': 'w1' },
    })
    expect(reply.body.data).toMatchObject({ strict: true, delay: { min: 10, max: 20 } })
    expect((await call('GET', '/users?foo=1', { headers: { 'x-sandbox-id': 'w1' } })).status).toBe(
      400,
    )
    expect((await call('GET', '/users?foo=1')).status).toBe(200)
    expect((await control('GET', '/config')).body.data.strict).toBe(false)
  })

  it.each([
    { errorRate: 2 },
    { delay: -5 },
    { delay: '9-3' },
    { strict: 'yes' },
    { colour: 'red' },
  ])('PATCH %j is 422', async (body) => {
    const reply = await control('PATCH', '/config', { body })
    expect(reply.status).toBe(422)
    expect(reply.body.code).toBe(42200)
  })

  it('PATCH with an unknown key inside a delay range is 422 naming it, and changes nothing', async () => {
    const reply = await control('PATCH', '/config', {
      body: { delay: { min: 100, max: 400, jitter: 50 } },
    })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toBe('validation failed: delay.jitter: is not a known field')
    expect((await control('GET', '/config')).body.data.delay).toBe(0)
  })
})

describe('control API: the rest', () => {
  it('GET /__sandbox describes this sandbox', async () => {
    const { body } = await control('GET', '', { headers: { 'x-sandbox-id': 'look' } })
    expect(body.data).toMatchObject({
      sandboxId: 'look',
      counts: { users: 50, products: 30, orders: 100 },
    })
  })

  it('unknown control paths are 404, wrong methods 405', async () => {
    expect((await control('GET', '/nothing')).status).toBe(404)
    const wrong = await control('POST', '/db')
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET, PUT, DELETE'])
    // OPTIONS without a preflight lists the methods, as on the API's routes.
    const options = await control('OPTIONS', '/overrides')
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, POST, DELETE'])
  })

  it('is off with control: false (404)', async () => {
    const closed = createSandbox({ control: false })
    const response = await closed.fetch('/__sandbox/db')
    expect(response.status).toBe(404)
    expect((await response.json()).code).toBe(40400)
  })
})

describe('snapshot and restore', () => {
  it('a snapshot is frozen, so restore can trust it', () => {
    const local = createSandbox({ users: 5, products: 2, orders: 3 })
    const snapshot = local.snapshot()
    expect(() => (snapshot.users as unknown[]).push({ id: 99 })).toThrow()
    local.db.users.delete(3)
    local.restore(snapshot)
    expect(local.db.users.size).toBe(5)
  })

  it('a document from elsewhere is validated before it replaces anything', () => {
    const local = createSandbox({ users: 5, products: 2, orders: 3 })
    const document = structuredClone(local.db.toJSON())
    document.orders[0]!.userId = 999
    expect(() => local.restore(document)).toThrow('orders[0].userId: user 999 does not exist')
    expect(local.db.orders.size).toBe(3)
  })

  it('takes what GET /__sandbox/db answers, envelope and all, as PUT does', async () => {
    const source = createSandbox({ users: 4, products: 1, orders: 0 })
    const saved = await (await source.fetch('/__sandbox/db')).json()
    const local = createSandbox({ users: 5, products: 2, orders: 3 })
    local.restore(saved)
    expect(local.db.users.all()).toEqual(source.db.users.all())
    expect(local.db.orders.size).toBe(0)
  })

  it('a copied snapshot keeps its id sequences, which must be valid ids', async () => {
    const local = createSandbox({ users: 5, products: 2, orders: 3 })
    const copy = structuredClone(local.snapshot())
    const bad = { ...copy, nextIds: { ...copy.nextIds, users: 'x' } }
    expect(() => local.restore(bad as never)).toThrow('nextIds.users')
    local.restore({ ...copy, nextIds: { ...copy.nextIds, users: 40 } })
    const created = await local.fetch('/users', {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sequence', email: 'sequence@example.com' }),
    })
    expect((await created.json()).data.id).toBe(40)
  })
})
