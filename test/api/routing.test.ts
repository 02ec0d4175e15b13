import { describe, expect, it } from 'vitest'
import { MEMBER } from '../support/client.js'
import { API, useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()

/** CONTRACT B2 routing and B4's order of checks, one row per rule. */
const cases: Array<{
  rule: string
  method: string
  path: string
  token?: string | null
  raw?: string
  headers?: Record<string, string>
  status: number
  code: number
  allow?: string
}> = [
  {
    rule: 'a verb path is a plain 404',
    method: 'GET',
    path: '/getUsers',
    status: 404,
    code: 40400,
  },
  {
    rule: 'a verb path is a plain 404, even without a token',
    method: 'GET',
    path: '/getUsers',
    token: null,
    status: 404,
    code: 40400,
  },
  {
    rule: 'a verb segment is a 404',
    method: 'GET',
    path: '/users/1/delete',
    status: 404,
    code: 40400,
  },
  {
    rule: 'POST to a verb segment is a 404',
    method: 'POST',
    path: '/users/1/delete',
    status: 404,
    code: 40400,
  },
  {
    rule: 'an unknown top-level path is a 404',
    method: 'GET',
    path: '/customers',
    status: 404,
    code: 40400,
  },
  {
    rule: 'double slashes are not a route',
    method: 'GET',
    path: '//users',
    status: 404,
    code: 40400,
  },
  {
    rule: 'GET /users/create: "create" sits in an id position',
    method: 'GET',
    path: '/users/create',
    status: 400,
    code: 40000,
  },
  {
    rule: 'POST /users/create: /users/{user_id} takes no POST',
    method: 'POST',
    path: '/users/create',
    status: 405,
    code: 40500,
    allow: 'GET, PUT, PATCH, DELETE',
  },
  {
    rule: '405 comes before authentication',
    method: 'POST',
    path: '/users/create',
    token: null,
    status: 405,
    code: 40500,
  },
  {
    rule: 'DELETE /users is not allowed',
    method: 'DELETE',
    path: '/users',
    status: 405,
    code: 40500,
    allow: 'GET, POST',
  },
  {
    rule: 'PUT on the nested order is not allowed',
    method: 'PUT',
    path: '/users/2/orders/1',
    status: 405,
    code: 40500,
    allow: 'GET',
  },
  {
    rule: 'GET /sessions is not allowed',
    method: 'GET',
    path: '/sessions',
    status: 405,
    code: 40500,
    allow: 'POST',
  },
  {
    rule: 'id 0 is not a positive integer',
    method: 'GET',
    path: '/users/0',
    status: 400,
    code: 40000,
  },
  { rule: 'a negative id is a 400', method: 'GET', path: '/users/-1', status: 400, code: 40000 },
  { rule: 'a decimal id is a 400', method: 'GET', path: '/users/1.5', status: 400, code: 40000 },
  { rule: 'a zero-padded id is a 400', method: 'GET', path: '/users/01', status: 400, code: 40000 },
  {
    rule: 'an id beyond 2^53 is a positive integer no record has: 404',
    method: 'GET',
    path: '/users/99999999999999999999',
    status: 404,
    code: 40400,
  },
  {
    rule: 'a bad nested order id is a 400',
    method: 'GET',
    path: '/users/1/orders/x',
    status: 400,
    code: 40000,
  },
  {
    rule: 'a bad product id is a 400',
    method: 'GET',
    path: '/products/abc',
    status: 400,
    code: 40000,
  },
  {
    rule: 'authentication comes before the path id',
    method: 'GET',
    path: '/users/abc',
    token: null,
    status: 401,
    code: 40100,
  },
  {
    rule: 'permission comes before the path id',
    method: 'GET',
    path: '/users/abc',
    token: MEMBER,
    status: 403,
    code: 40300,
  },
  {
    rule: 'permission comes before the body',
    method: 'POST',
    path: '/users',
    token: MEMBER,
    raw: '{oops',
    headers: { 'content-type': 'application/json' },
    status: 403,
    code: 40300,
  },
  {
    rule: 'the path id comes before the body',
    method: 'PUT',
    path: '/users/abc',
    raw: '{oops',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 40000,
  },
  {
    rule: 'a body that is not JSON is a 415',
    method: 'PUT',
    path: '/users/1',
    raw: '{oops',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 41500,
  },
  {
    rule: 'the body comes before existence',
    method: 'PUT',
    path: '/users/999',
    raw: '{oops',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 40004,
  },
  {
    rule: 'existence comes before validation',
    method: 'PUT',
    path: '/users/999',
    raw: '{}',
    headers: { 'content-type': 'application/json' },
    status: 404,
    code: 40400,
  },
  {
    rule: 'PATCH of a missing record is a 404 (no upsert)',
    method: 'PATCH',
    path: '/users/999',
    raw: '{"name":"ghost"}',
    headers: { 'content-type': 'application/json' },
    status: 404,
    code: 40400,
  },
  { rule: 'a trailing slash is ignored', method: 'GET', path: '/users/', status: 200, code: 0 },
]

describe('routing and the order of checks (CONTRACT B2, B4)', () => {
  it.each(cases)(
    '$rule: $method $path → $status',
    async ({ method, path, token, raw, headers, status, code, allow }) => {
      const reply = await call(method, path, { token, raw, headers })
      expect(reply.status).toBe(status)
      expect(reply.body).toMatchObject({ code })
      if (code !== 0) expect(reply.body.data).toBeNull()
      if (allow) expect(reply.headers.get('allow')).toBe(allow)
    },
  )

  it('a query never changes data (?action=delete deletes nothing)', async () => {
    const before = sandbox.db.users.size
    expect((await call('GET', '/users/5?action=delete')).status).toBe(200)
    expect((await call('GET', '/users/5?_method=DELETE')).status).toBe(200)
    expect((await call('GET', '/users/5')).status).toBe(200)
    expect((await call('GET', '/users?action=delete')).body.data.total).toBe(before)
  })

  it('a method is case-sensitive (RFC 9110): `patch` is no PATCH, 405 with Allow', async () => {
    // Through msw's own getResponse: msw 3's interceptor sends such a method to the network
    // before any handler sees it (docs/reference/api.md).
    const { getResponse } = await import('msw')
    const before = sandbox.db.users.get(1)
    const answer = await getResponse(
      sandbox.handlers,
      new Request(`${API}/users/1`, {
        method: 'patch',
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'changed' }),
      }),
    )
    expect(answer?.status).toBe(405)
    expect(answer?.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE')
    expect(await answer?.json()).toEqual({
      code: 40500,
      message: 'patch is not allowed on /users/{user_id}; allowed: GET, PUT, PATCH, DELETE',
      data: null,
    })
    expect(sandbox.db.users.get(1)).toEqual(before)
  })

  it('HEAD answers like GET without a body', async () => {
    const reply = await call('HEAD', '/users/1')
    expect(reply.status).toBe(200)
    expect(reply.text).toBe('')
  })
})

describe('HTTP details (CONTRACT B6)', () => {
  it('answers JSON as application/json; charset=utf-8 with an X-Request-Id', async () => {
    const reply = await call('GET', '/users/1')
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(reply.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })

  it('gives every request a new X-Request-Id', async () => {
    const ids = new Set<string | null>()
    // Past a multiple of 256 of the counter behind them, where its digits are written anew.
    for (let i = 0; i < 600; i++)
      ids.add((await call('GET', '/users/1')).headers.get('x-request-id'))
    expect(ids.size).toBe(600)
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    // One counter: the ids in order of the requests, 1 apart.
    const counters = [...ids].map((id) => Number.parseInt(id!.slice(-12), 16))
    expect(
      counters.every((value, index) => index === 0 || value === counters[index - 1]! + 1),
    ).toBe(true)
  })

  it('echoes the client’s X-Request-Id, on errors too', async () => {
    for (const path of ['/users/1', '/nowhere']) {
      const reply = await call('GET', path, { headers: { 'x-request-id': 'trace-123' } })
      expect(reply.headers.get('x-request-id')).toBe('trace-123')
    }
    for (const sent of ['trace 42; span=7', 'x'.repeat(200)]) {
      const reply = await call('GET', '/users/1', { headers: { 'x-request-id': sent } })
      expect(reply.headers.get('x-request-id')).toBe(sent)
    }
    // Past 200 characters, or past ASCII: a new one (documented in the API reference).
    for (const sent of ['x'.repeat(201), 'café']) {
      const reply = await call('GET', '/users/1', { headers: { 'x-request-id': sent } })
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/)
    }
  })

  it('gives a 204 no body and no content type', async () => {
    const reply = await call('DELETE', '/users/7')
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    expect(reply.headers.get('x-request-id')).toBeTruthy()
  })
})
