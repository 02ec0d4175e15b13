import { describe, expect, it } from 'vitest'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const json = { 'content-type': 'application/json' }
const newUser = { name: 'newcomer', email: 'newcomer@example.com' }

describe('GET /users: collection queries (CONTRACT B3)', () => {
  it('answers the list payload with defaults page 1, pageSize 20, sorted by id', async () => {
    const { status, body } = await call('GET', '/users')
    expect(status).toBe(200)
    expect(body).toMatchObject({ code: 0, message: 'success' })
    expect(body.data).toMatchObject({ total: 50, page: 1, pageSize: 20 })
    expect(body.data.list.map((user: { id: number }) => user.id)).toEqual(
      [...Array(20).keys()].map((i) => i + 1),
    )
    expect(Object.keys(body.data.list[0])).toEqual([
      'id',
      'name',
      'email',
      'status',
      'role',
      'createdAt',
      'updatedAt',
    ])
  })

  it('combines every parameter in one request', async () => {
    const { body } = await call(
      'GET',
      '/users?status=active&sort=createdAt&order=desc&fields=id,name&pageSize=5&page=2',
    )
    const active = sandbox.db.users.all().filter((user) => user.status === 'active')
    const expected = [...active]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id - b.id)
      .slice(5, 10)
    expect(body.data).toEqual({
      list: expected.map(({ id, name }) => ({ id, name })),
      total: active.length,
      page: 2,
      pageSize: 5,
    })
  })

  it('sorts names case-insensitively, stable with ties by id', async () => {
    await call('POST', '/users', { body: { name: 'aaa', email: 'a1@example.com' } })
    await call('POST', '/users', { body: { name: 'AAB', email: 'a2@example.com' } })
    const { body } = await call('GET', '/users?sort=name&pageSize=2')
    expect(body.data.list.map((user: { name: string }) => user.name)).toEqual(['aaa', 'AAB'])
    const byStatus = (
      await call('GET', '/users?sort=status&order=desc&pageSize=100&fields=id,status')
    ).body.data.list
    const inactive = byStatus.filter((user: { status: string }) => user.status === 'inactive')
    expect(byStatus.slice(0, inactive.length)).toEqual(inactive)
    const ids = inactive.map((user: { id: number }) => user.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
  })

  it('searches name and e-mail case-insensitively, total counts all matches', async () => {
    const { body } = await call('GET', '/users?keyword=EXAMPLE.ORG&pageSize=1')
    const matches = sandbox.db.users.all().filter((user) => user.email.includes('example.org'))
    expect(body.data.total).toBe(matches.length)
    expect(body.data.list).toHaveLength(1)
    expect((await call('GET', '/users?keyword=MEMB')).body.data.list[0].id).toBe(2)
  })

  it('a keyword is a substring of one field, never across name and e-mail', async () => {
    // user 2 is 'member' <member@example.com>: its fields' texts joined would hold this.
    const across = await call('GET', `/users?keyword=${encodeURIComponent('member\u0000member@')}`)
    expect(across.status).toBe(200)
    expect(across.body.data).toMatchObject({ list: [], total: 0 })
    for (const path of ['/users', '/products', '/orders'])
      expect((await call('GET', `${path}?keyword=%00`)).body.data.total, path).toBe(0)
  })

  it('a page past the end is 200 with an empty list and the true total', async () => {
    const { status, body } = await call('GET', '/users?page=99')
    expect(status).toBe(200)
    expect(body.data).toEqual({ list: [], total: 50, page: 99, pageSize: 20 })
  })

  it('fields returns exactly the named fields, also on a single record', async () => {
    expect((await call('GET', '/users?fields=email,id&pageSize=1')).body.data.list).toEqual([
      { email: 'admin@example.com', id: 1 },
    ])
    expect((await call('GET', '/users/2?fields=role')).body.data).toEqual({ role: 'member' })
  })

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=', 'page'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['page=1&page=2', 'page'],
    ['status=deleted', 'status'],
    ['status=pending', 'status'],
    ['sort=password', 'sort'],
    ['sort=role', 'sort'],
    ['order=up', 'order'],
    ['order=DESC', 'order'],
    ['fields=id,password', 'fields'],
    ['fields=', 'fields'],
    ['keyword=', 'keyword'],
    [`keyword=${'x'.repeat(101)}`, 'keyword'],
    ['sort=name&sort=id', 'sort'],
  ])('400 / 40000 for ?%s, naming %s', async (query, parameter) => {
    const { status, body } = await call('GET', `/users?${query}`)
    expect(status).toBe(400)
    expect(body).toEqual({ code: 40000, message: expect.stringContaining(parameter), data: null })
  })

  it('says what was wrong and what is allowed', async () => {
    expect((await call('GET', '/users?pageSize=500')).body.message).toBe(
      "pageSize must be an integer from 1 to 100, got '500'",
    )
    // A keyword's characters are counted as its rule counts them: an emoji is one.
    expect((await call('GET', `/users?keyword=${'😀'.repeat(100)}`)).status).toBe(200)
    expect((await call('GET', `/users?keyword=${'😀'.repeat(101)}`)).body.message).toBe(
      'keyword must be 1 to 100 characters, got 101',
    )
  })

  it('takes integers written plainly, as path ids are: 02 is refused in a query as in a path', async () => {
    for (const [path, message] of [
      ['/users?page=01', "page must be an integer 1 or more, got '01'"],
      ['/users?pageSize=020', "pageSize must be an integer from 1 to 100, got '020'"],
      ['/orders?userId=02', "userId must be an integer 1 or more, got '02'"],
      ['/users/02/orders', "user_id must be a positive integer, got '02'"],
      ['/users/02', "user_id must be a positive integer, got '02'"],
    ]) {
      const { status, body } = await call('GET', path!)
      expect(status).toBe(400)
      expect(body).toEqual({ code: 40000, message, data: null })
    }
    expect((await call('GET', '/orders?userId=2&page=1&pageSize=10')).status).toBe(200)
  })

  it('takes an id of more digits than a number holds as the positive integer it is: no record has it', async () => {
    const past = `with an id past ${Number.MAX_SAFE_INTEGER}`
    for (const [method, path, message] of [
      ['GET', '/users/99999999999999999999', `user ${past} not found`],
      ['GET', '/users/9007199254740993', `user ${past} not found`],
      ['DELETE', `/orders/${'7'.repeat(400)}`, `order ${past} not found`],
      ['GET', '/users/99999999999999999999/orders', `user ${past} not found`],
      ['GET', '/users/1/orders/99999999999999999999', `order ${past} of user 1 not found`],
    ]) {
      const { status, body } = await call(method!, path!)
      expect({ path, status, body }).toEqual({
        path,
        status: 404,
        body: { code: 40400, message, data: null },
      })
    }
    // The path id and the query (400) come before the record's existence (404), as for any id.
    const badQuery = await call('GET', '/users/99999999999999999999/orders?page=0')
    expect([badQuery.status, badQuery.body.code]).toEqual([400, 40000])
    const badBody = await call('PUT', '/users/99999999999999999999', { raw: '{', headers: json })
    const missing = await call('PUT', '/users/99999', { raw: '{', headers: json })
    expect([badBody.status, badBody.body]).toEqual([400, missing.body])
    // A filter by such an owner: none has it.
    const none = await call('GET', '/orders?userId=99999999999999999999')
    expect(none.status).toBe(200)
    expect(none.body.data).toMatchObject({ list: [], total: 0 })
    // A page that long is past the rule's integers, and the message says where they end.
    const page = await call('GET', '/users?page=99999999999999999999')
    expect([page.status, page.body.message]).toEqual([
      400,
      `page must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}, got '99999999999999999999'`,
    ])
    // Leading zeros, signs and other text stay 400.
    for (const path of ['/users/099999999999999999999', '/orders?userId=-99999999999999999999']) {
      const { status, body } = await call('GET', path)
      expect([path, status, body.code]).toEqual([path, 400, 40000])
    }
  })

  it('ignores unknown parameters', async () => {
    expect((await call('GET', '/users?foo=bar&pageSize=1')).status).toBe(200)
  })
})

describe('POST /users', () => {
  it('creates a user: 201, Location, defaults, trimmed name, next id', async () => {
    const { status, headers, body } = await call('POST', '/users', {
      body: { name: '  newcomer ', email: newUser.email },
    })
    expect(status).toBe(201)
    expect(headers.get('location')).toBe('/users/51')
    expect(body.data).toEqual({
      id: 51,
      name: 'newcomer',
      email: newUser.email,
      status: 'active',
      role: 'member',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: body.data.createdAt,
    })
    expect((await call('GET', '/users/51')).body.data).toEqual(body.data)
  })

  it('ignores read-only and unknown fields', async () => {
    const { body } = await call('POST', '/users', {
      body: {
        ...newUser,
        id: 7,
        createdAt: '2000-01-01T00:00:00.000Z',
        password: 'x',
        isAdmin: true,
      },
    })
    expect(body.data.id).toBe(51)
    expect(body.data.createdAt).not.toBe('2000-01-01T00:00:00.000Z')
    expect(body.data).not.toHaveProperty('password')
    expect(body.data).not.toHaveProperty('isAdmin')
  })

  it.each([
    { body: { name: 'ADMIN', email: 'x@example.com' }, code: 40001 },
    { body: { name: ' admin ', email: 'x@example.com' }, code: 40001 },
    { body: { name: 'someone', email: 'Admin@Example.com' }, code: 40002 },
  ])('409 / $code for a taken name or e-mail, case-insensitively', async ({ body, code }) => {
    const reply = await call('POST', '/users', { body })
    expect(reply.status).toBe(409)
    expect(reply.body).toMatchObject({ code, data: null })
  })

  it.each([
    [{ email: 'a@example.com' }, 'name: is required'],
    [{ name: 'x', email: 'a@example.com' }, 'name: must be at least 2 characters'],
    [{ name: '   x   ', email: 'a@example.com' }, 'name: must be at least 2 characters'],
    [{ name: 'x'.repeat(51), email: 'a@example.com' }, 'name: must be at most 50 characters'],
    [{ name: 'okay', email: 'not-an-email' }, 'email: must be a valid e-mail address'],
    [{ name: 'okay', email: `${'a'.repeat(250)}@x.io` }, 'email: must be at most 254 characters'],
    [{ name: 'okay', email: 'a@example.com', role: 'owner' }, 'role: must be one of admin, member'],
    [
      { name: 'okay', email: 'a@example.com', status: 'gone' },
      'status: must be one of active, inactive',
    ],
    [{ name: 42, email: 'a@example.com' }, 'name: must be a string'],
    [[], 'body: must be an object'],
    ['text', 'body: must be an object'],
  ])('422 / 42200 for %j: %s', async (body, message) => {
    const reply = await call('POST', '/users', { body })
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual({
      code: 42200,
      message: expect.stringContaining(message),
      data: null,
    })
  })

  it('names every failing field in one 422', async () => {
    const { body } = await call('POST', '/users', { body: { name: 'x', email: 'nope' } })
    expect(body.message).toMatch(/name: .*; email: /)
  })

  it('lets an admin set the role', async () => {
    expect(
      (await call('POST', '/users', { body: { ...newUser, role: 'admin' } })).body.data.role,
    ).toBe('admin')
  })

  it.each([
    { headers: {}, raw: '{}', status: 415, code: 41500 },
    { headers: { 'content-type': 'text/plain' }, raw: '{}', status: 415, code: 41500 },
    {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'a=b',
      status: 415,
      code: 41500,
    },
    { headers: json, raw: '', status: 400, code: 40004 },
    { headers: json, raw: '{"name":', status: 400, code: 40004 },
    { headers: json, raw: "{'name':'x'}", status: 400, code: 40004 },
    {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      raw: JSON.stringify(newUser),
      status: 201,
      code: 0,
    },
    {
      headers: { 'content-type': 'application/vnd.shop+json' },
      raw: JSON.stringify(newUser),
      status: 201,
      code: 0,
    },
  ])('body $headers $raw → $status / $code', async ({ headers, raw, status, code }) => {
    const reply = await call('POST', '/users', { raw, headers })
    expect(reply.status).toBe(status)
    expect(reply.body.code).toBe(code)
  })

  it('415 / 41500 for a compressed body, saying with Accept-Encoding what is taken', async () => {
    const raw = JSON.stringify(newUser)
    const gzip = await call('POST', '/users', {
      raw,
      headers: { ...json, 'content-encoding': 'gzip' },
    })
    expect([gzip.status, gzip.body.code, gzip.headers.get('accept-encoding')]).toEqual([
      415,
      41500,
      'identity',
    ])
    expect(gzip.body.message).toBe(
      "body is sent with Content-Encoding 'gzip': send it uncompressed",
    )
    expect(sandbox.db.users.all().some((user) => user.email === newUser.email)).toBe(false)
    // `identity` is no coding.
    const plain = await call('POST', '/users', {
      raw,
      headers: { ...json, 'content-encoding': 'Identity' },
    })
    expect(plain.status).toBe(201)
  })

  it('413 / 41300 for a body over 1 MiB', async () => {
    const reply = await call('POST', '/users', {
      raw: JSON.stringify({ ...newUser, pad: 'x'.repeat(1024 * 1024) }),
      headers: json,
    })
    expect(reply.status).toBe(413)
    expect(reply.body).toMatchObject({ code: 41300, data: null })
  })
})

describe('PUT, PATCH, DELETE /users/{user_id}', () => {
  it('PUT needs every writable field', async () => {
    const reply = await call('PUT', '/users/5', {
      body: { name: 'renamed', email: 'renamed@example.com' },
    })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain('status: is required')
    expect(reply.body.message).toContain('role: is required')
  })

  it('PUT replaces every writable field and keeps the read-only ones', async () => {
    const before = sandbox.db.users.get(5)!
    const body = {
      name: 'renamed',
      email: 'renamed@example.com',
      status: 'inactive',
      role: 'admin',
      id: 99,
    }
    const reply = await call('PUT', '/users/5', { body })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({
      id: 5,
      name: 'renamed',
      status: 'inactive',
      role: 'admin',
      createdAt: before.createdAt,
    })
    expect(reply.body.data.updatedAt > before.updatedAt).toBe(true)
  })

  it.each([
    ['PATCH', '/users/7', () => ({ status: sandbox.db.users.get(7)!.status })],
    [
      'PUT',
      '/users/7',
      () => {
        const { name, email, status, role } = sandbox.db.users.get(7)!
        return { name, email, status, role }
      },
    ],
    ['PATCH', '/products/2', () => ({ price: sandbox.db.products.get(2)!.price })],
    ['PATCH', '/orders/1', () => ({ status: sandbox.db.orders.get(1)!.status })],
  ] as const)(
    'one rule for every resource: %s %s that changes nothing keeps updatedAt; a real change moves it',
    async (method, path, same) => {
      const before = (await call('GET', path)).body.data
      const unchanged = await call(method, path, { body: same() })
      expect(unchanged.status).toBe(200)
      expect(unchanged.body.data).toEqual(before)
    },
  )

  it('PATCH changes only what it names', async () => {
    const before = sandbox.db.users.get(6)!
    const reply = await call('PATCH', '/users/6', { body: { status: 'inactive' } })
    expect(reply.body.data).toEqual({
      ...before,
      status: 'inactive',
      updatedAt: reply.body.data.updatedAt,
    })
  })

  it('PATCH to a name another user holds is 409 / 40001; to its own name (any case) is fine', async () => {
    expect((await call('PATCH', '/users/6', { body: { name: 'MEMBER' } })).body.code).toBe(40001)
    const own = sandbox.db.users.get(6)!.name
    expect((await call('PATCH', '/users/6', { body: { name: own.toUpperCase() } })).status).toBe(
      200,
    )
  })

  it('DELETE answers 204, the user is gone, and its id is never reused', async () => {
    expect((await call('DELETE', '/users/50')).status).toBe(204)
    expect((await call('GET', '/users/50')).body).toMatchObject({
      code: 40400,
      message: 'user 50 not found',
    })
    expect((await call('DELETE', '/users/50')).status).toBe(404)
    expect((await call('POST', '/users', { body: newUser })).body.data.id).toBe(51)
  })

  it('DELETE with Prefer: return=representation answers 200 with the deleted user', async () => {
    const user = sandbox.db.users.get(9)
    const reply = await call('DELETE', '/users/9', { headers: { prefer: 'return=representation' } })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual(user)
  })

  it("DELETE removes the user's orders", async () => {
    const owned = sandbox.db.orders.all().filter((order) => order.userId === 2)
    expect(owned.length).toBeGreaterThan(0)
    await call('DELETE', '/users/2')
    expect(sandbox.db.orders.all().filter((order) => order.userId === 2)).toEqual([])
    for (const order of owned) expect((await call('GET', `/orders/${order.id}`)).status).toBe(404)
  })
})

describe('members and their own user', () => {
  it.each([
    { method: 'GET', path: '/users/2', status: 200 },
    { method: 'PATCH', path: '/users/2', body: { name: 'member-renamed' }, status: 200 },
    {
      method: 'PUT',
      path: '/users/2',
      body: { name: 'member-renamed', email: 'member@example.com' },
      status: 200,
    },
    { method: 'PATCH', path: '/users/2', body: { role: 'member', status: 'active' }, status: 200 },
    { method: 'PATCH', path: '/users/2', body: { role: 'admin' }, status: 403 },
    { method: 'PATCH', path: '/users/2', body: { status: 'inactive' }, status: 403 },
    {
      method: 'PUT',
      path: '/users/2',
      body: { name: 'm2', email: 'member@example.com', role: 'admin', status: 'active' },
      status: 403,
    },
    { method: 'DELETE', path: '/users/2', status: 403 },
    { method: 'GET', path: '/users/1', status: 403 },
    { method: 'GET', path: '/users/999', status: 403 },
    { method: 'PATCH', path: '/users/3', body: { name: 'hijack' }, status: 403 },
    { method: 'GET', path: '/users', status: 403 },
    { method: 'POST', path: '/users', body: newUser, status: 403 },
  ])('member $method $path $body → $status', async ({ method, path, body, status }) => {
    const reply = await call(method, path, { token: MEMBER, body })
    expect(reply.status).toBe(status)
    if (status === 403)
      expect(reply.body).toEqual({ code: 40300, message: expect.any(String), data: null })
  })
})
