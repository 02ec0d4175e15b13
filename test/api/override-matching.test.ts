import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import type { Call } from '../support/client.js'
import { assertConforms } from '../support/conformance.js'
import { clientFor } from '../support/client.js'

// CONTRACT C2's finer matching, sequences, journal headers and order, near misses: the same
// checks in code (sandbox.fetch, no network) and over HTTP (the Node server). Browser mode:
// test/e2e/console-browser-mode.test.ts.
const inProcess = createSandbox({ baseUrl: 'https://api.shop.test' })
let server: SandboxServer
const modes: [string, () => Call, () => void][] = [
  [
    'in code: sandbox.fetch',
    () => clientFor('https://api.shop.test', assertConforms, inProcess.fetch.bind(inProcess)),
    () => inProcess.reset(),
  ],
  ['over HTTP: the Node server', () => clientFor(server.url), () => server.sandbox.reset()],
]
beforeAll(async () => {
  server = await createSandboxServer({ port: 0 })
})
afterAll(() => server.close())

describe.each(modes)('scenarios (CONTRACT C2), %s', (_, client, reset) => {
  let call: Call
  beforeAll(() => {
    call = client()
  })
  afterEach(() => reset())
  const override = (body: unknown) => call('POST', '/__sandbox/overrides', { body, token: null })

  it('headers: every listed header present with that value, names in any case', async () => {
    expect(
      (
        await override({
          path: '/users/{user_id}',
          headers: { 'X-Client': 'ios' },
          response: { status: 200, data: { ios: true } },
        })
      ).status,
    ).toBe(201)
    const ios = await call('GET', '/users/3', { headers: { 'x-client': 'ios' }, overridden: true })
    expect(ios.body).toEqual({ code: 0, message: 'success', data: { ios: true } })
    const web = await call('GET', '/users/3', { headers: { 'X-Client': 'web' } })
    expect(web.body.data.id).toBe(3)
    expect((await call('GET', '/users/3')).body.data.id).toBe(3)
  })

  it('body: the JSON body must contain the value, recursively; with headers both must hold', async () => {
    await override({
      method: 'POST',
      path: '/users',
      body: { name: 'Taken Name' },
      response: { status: 409, code: 40901, message: 'username taken' },
    })
    const taken = await call('POST', '/users', {
      body: { name: 'Taken Name', email: 'taken@example.com' },
      overridden: true,
    })
    expect(taken.status).toBe(409)
    expect(taken.body).toEqual({ code: 40901, message: 'username taken', data: null })
    // An overridden write changes no data.
    expect((await call('GET', '/users?pageSize=1')).body.data.total).toBe(50)
    const other = await call('POST', '/users', {
      body: { name: 'Free Name', email: 'free@example.com' },
    })
    expect(other.status).toBe(201)
    // A body sent compressed is no JSON to match, as it is none the API reads (415).
    const compressed = await call('POST', '/users', {
      raw: JSON.stringify({ name: 'Taken Name', email: 'taken@example.com' }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    expect([compressed.status, compressed.body.code]).toEqual([415, 41500])
    // Nor is one of another media type: the API refuses it 415 (it matched).
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const untyped = await call('POST', '/users', {
        raw: JSON.stringify({ name: 'Taken Name', email: 'taken@example.com' }),
        headers: { 'content-type': type },
      })
      expect([type, untyped.status, untyped.body.code]).toEqual([type, 415, 41500])
    }
  })

  it('body: a key named __proto__ must be the body’s own, as any other key', async () => {
    expect(
      (
        await override({
          method: 'PATCH',
          path: '/users/4',
          body: JSON.parse('{"__proto__":{}}') as unknown,
          response: { status: 503 },
        })
      ).status,
    ).toBe(201)
    // Read from a body without one, __proto__ was Object.prototype, which contained {}.
    const plain = await call('PATCH', '/users/4', { body: { name: 'Plain Name' } })
    expect([plain.status, plain.body.data.name]).toEqual([200, 'Plain Name'])
    const own = await call('PATCH', '/users/4', {
      body: JSON.parse('{"__proto__":{"x":1},"name":"Own Name"}') as unknown,
      overridden: true,
    })
    expect(own.status).toBe(503)
  })

  it('responses: a sequence, first call fails and the retry succeeds; the last repeats; next is listed', async () => {
    const created = await override({
      method: 'GET',
      path: '/products',
      responses: [
        { status: 503 },
        { status: 200, data: { list: [], total: 0, page: 1, pageSize: 20 } },
      ],
    })
    expect(created.status).toBe(201)
    expect(created.body.data.next).toBe(0)
    expect((await call('GET', '/products', { overridden: true })).status).toBe(503)
    const listed = await call('GET', '/__sandbox/overrides', { token: null })
    expect(listed.body.data.list[0].next).toBe(1)
    for (let n = 0; n < 2; n++) {
      const retry = await call('GET', '/products', { overridden: true })
      expect(retry.status).toBe(200)
      expect(retry.body.data.total).toBe(0)
    }
  })

  it('a sequence with times is removed after its last counted answer', async () => {
    await override({ path: '/products', times: 2, responses: [{ status: 500 }, { status: 502 }] })
    expect((await call('GET', '/products', { overridden: true })).status).toBe(500)
    expect((await call('GET', '/products', { overridden: true })).status).toBe(502)
    expect((await call('GET', '/products')).body.data.total).toBe(30)
  })

  it('the journal keeps request and response headers, secrets redacted; order=desc is newest first', async () => {
    await call('GET', '/users/1', { headers: { 'X-Client': 'web', cookie: 'session=abc' } })
    await call('GET', '/users/2')
    const asc = (await call('GET', '/__sandbox/requests', { token: null })).body.data
    expect(asc.list.map((entry: { path: string }) => entry.path)).toEqual(['/users/1', '/users/2'])
    expect(asc.list[0].requestHeaders).toMatchObject({
      authorization: 'Bearer ***',
      'x-client': 'web',
    })
    expect(JSON.stringify(asc.list)).not.toContain('sandbox-admin-token')
    expect(JSON.stringify(asc.list)).not.toContain('session=abc')
    expect(asc.list[0].responseHeaders['content-type']).toMatch(/^application\/json/)
    const desc = (await call('GET', '/__sandbox/requests?order=desc', { token: null })).body.data
    expect(desc.list.map((entry: { path: string }) => entry.path)).toEqual(['/users/2', '/users/1'])
  })

  it('a near miss: the 404 and the journal name the closest override and the condition it failed', async () => {
    const stub = await override({
      method: 'GET',
      path: '/reports',
      headers: { 'X-Client': 'ios' },
      response: { status: 200, body: { ok: true } },
    })
    const id = stub.body.data.id
    const hit = await call('GET', '/reports', { headers: { 'X-Client': 'ios' }, overridden: true })
    expect(hit.body).toEqual({ ok: true })
    const miss = await call('GET', '/reports', { headers: { 'X-Client': 'web' } })
    expect(miss.status).toBe(404)
    expect(miss.body.code).toBe(40400)
    expect(miss.body.message).toContain(`closest override (${id}: GET /reports)`)
    expect(miss.body.message).toContain('headers.x-client')
    const wrongMethod = await call('POST', '/reports', { body: {} })
    expect(wrongMethod.status).toBe(404)
    expect(wrongMethod.body.message).toContain('did not match on method')
    const journal = (
      await call('GET', '/__sandbox/requests?status=404&order=desc', { token: null })
    ).body.data
    expect(journal.list.map((entry: { nearMiss: unknown }) => entry.nearMiss)).toEqual([
      { overrideId: id, reason: 'method' },
      { overrideId: id, reason: 'headers.x-client' },
    ])
  })

  it('a near miss among overrides that fail on the same condition: the closest path, not the newest', async () => {
    const stub = (path: string) =>
      override({ path, response: { status: 200 } }).then((added) => added.body.data.id as number)
    const avatar = await stub('/users/{user_id}/avatar')
    await stub('/users/{user_id}/banner')
    await stub('/zzz')
    const miss = await call('GET', '/users/3/avatr')
    expect(miss.status).toBe(404)
    expect(miss.body.message).toContain(
      `the closest override (${avatar}: any method /users/{user_id}/avatar) did not match on path`,
    )
    // Nearer in shape: the same number of segments, in the same places.
    const reports = await stub('/reports/{report_id}')
    await stub('/zzz/yyy/xxx/www')
    expect((await call('GET', '/reports/7/x')).body.message).toContain(
      `the closest override (${reports}: any method /reports/{report_id}) did not match on path`,
    )
  })
})

describe('the same in code, typed', () => {
  afterEach(() => inProcess.reset())
  it('override() takes headers, body and responses; requests() returns headers and nearMiss', async () => {
    const retry = inProcess.override({
      method: 'GET',
      path: '/users/{user_id}',
      headers: { 'X-Client': 'ios' },
      responses: [{ status: 503 }, { status: 200, data: { retried: true } }],
    })
    expect(retry.next).toBe(0)
    const ask = () =>
      inProcess.fetch('https://api.shop.test/users/4', {
        headers: { authorization: 'Bearer sandbox-admin-token', 'x-client': 'ios' },
      })
    expect((await ask()).status).toBe(503)
    expect(await (await ask()).json()).toEqual({
      code: 0,
      message: 'success',
      data: { retried: true },
    })
    expect(inProcess.overrides[0]!.next).toBe(1)
    const [first] = inProcess.requests({ path: '/users/{user_id}' })
    const headers: Readonly<Record<string, string>> = first!.requestHeaders
    expect(headers['x-client']).toBe('ios')
    expect(first!.overrideId).toBe(retry.id)
    expect(retry.remove()).toBe(true)
    expect((await ask()).status).toBe(200)
  })

  it('the override handed out cannot be changed behind the checks (a status of 1000 was a 500)', async () => {
    const stub = inProcess.override({ path: '/r1', response: { status: 200, data: { a: 1 } } })
    const response = stub.response as { status: number; headers?: Record<string, string> }
    expect(() => (response.status = 1000)).toThrow(TypeError)
    expect(() => (response.headers = { 'Content-Length': '1' })).toThrow(TypeError)
    const listed = inProcess.overrides[0]!.response as { data: { a: number } }
    expect(() => (listed.data.a = 2)).toThrow(TypeError)
    const answer = await inProcess.fetch('https://api.shop.test/r1')
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ code: 0, message: 'success', data: { a: 1 } })
  })

  it('requests() refuses a filter the control API refuses, naming it (a typo matched nothing)', async () => {
    await inProcess.fetch('https://api.shop.test/users/4', {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(inProcess.requests({ path: '/users/{user_id}', method: 'GET' })).toHaveLength(1)
    expect(() => inProcess.requests({ path: 'users/{user_id}' })).toThrow(
      'Invalid requests filter: path: must start with /',
    )
    expect(() => inProcess.requests({ status: 'x' as unknown as number })).toThrow(
      /filter: status: /,
    )
    expect(() => inProcess.requests({ order: 'newest' as 'desc' })).toThrow(/filter: order: /)
    expect(() => inProcess.requests({ methd: 'GET' } as never)).toThrow(/methd/)
  })
})
