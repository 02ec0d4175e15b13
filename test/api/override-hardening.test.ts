import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call, sandbox } = useInProcessSandbox()
const override = (body: unknown) => call('POST', '/__sandbox/overrides', { body, token: null })

describe('overrides are validated field by field (422 naming the field)', () => {
  const bad: Array<[string, unknown, string]> = [
    ['a CR/LF in a header value', { 'X-Evil': 'a\r\nSet-Cookie: x=1' }, 'response.headers.X-Evil'],
    ['a NUL in a header value', { 'X-Evil': 'a\u0000b' }, 'response.headers.X-Evil'],
    ['a character outside Latin-1', { 'X-Evil': 'snow ☃' }, 'response.headers.X-Evil'],
    ['a header name with a space', { 'X Evil': 'a' }, 'response.headers.X Evil'],
    ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }, 'response.headers.Transfer-Encoding'],
    ['Content-Length', { 'content-length': '5' }, 'response.headers.content-length'],
    ['Connection', { Connection: 'close' }, 'response.headers.Connection'],
    // Names are case-insensitive: one of the two was stored, listed, and never sent.
    [
      'one name twice in two cases',
      { 'Set-Cookie': 'session=abc', 'set-cookie': 'theme=dark' },
      'response.headers.set-cookie',
    ],
  ]
  it.each(bad)('%s', async (_, headers, field) => {
    const reply = await override({ path: '/users', response: { status: 200, headers } })
    expect(reply.status).toBe(422)
    expect(reply.body.code).toBe(42200)
    expect(reply.body.message).toContain(`${field}: `)
  })

  it('a header condition named twice in two cases is 422 too (it could never hold)', async () => {
    const reply = await override({
      path: '/users',
      headers: { 'X-Client': 'ios', 'x-client': 'web' },
      response: { status: 200 },
    })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(
      "headers.x-client: is given twice, as 'X-Client' too (header names are case-insensitive); give it once",
    )
  })

  it.each([
    [{ status: '200' }, 'response.status: must be an integer from 100 to 599'],
    [{ status: 99 }, 'response.status: must be from 100 to 599'],
    [{ status: 600 }, 'response.status: must be from 100 to 599'],
    [
      { status: 103, body: {} },
      'response.body: cannot be combined with status 103: a 1xx answer carries headers only',
    ],
    [{}, 'response.status: is required (or give drop: true)'],
    [{ drop: true, status: 200 }, 'response.status: cannot be combined with drop'],
    [{ status: 200, body: {}, data: 1 }, 'response.data: cannot be combined with body'],
  ])('response %j: %s', async (response, message) => {
    const reply = await override({ path: '/users', response })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(message)
  })

  it('response headers are bounded: at most 50 and 8 KiB (an answer with huge headers stalls clients)', async () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`h${i}`, 'v']))
    const reply = await override({ path: '/users', response: { status: 200, headers: many } })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toBe(
      'validation failed: response.headers: must name at most 50 headers (got 60)',
    )
    const long = await override({
      path: '/users',
      response: {
        status: 200,
        headers: {
          'X-Long': 'x'.repeat(3000),
          'X-Longer': 'y'.repeat(3000),
          'X-Longest': 'z'.repeat(3000),
        },
      },
    })
    expect(long.status).toBe(422)
    expect(long.body.message).toBe(
      'validation failed: response.headers: must be at most 8192 bytes of headers (got 9035)',
    )
  })

  it('a body condition is bounded (every request on its path is compared with it)', async () => {
    const keys = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]))
    const reply = await override({ path: '/stub', body: keys, response: { status: 200 } })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain('body: must be at most 16384 characters of JSON')
  })

  it.each([
    ['/a//b', 'must not have empty segments'],
    ['/users/{user_id}x', "has '{user_id}x': a parameter is a whole segment"],
    ['/users/:id', 'names a parameter as :id: write it in braces, like {id}'],
    ['/__sandbox/overrides', 'the control API cannot be overridden'],
    ['/a\u0000b', 'without a query, fragment, spaces or control characters'],
    ['/a/../users/1', "has a '..' segment: a request's URL resolves it before it is matched"],
    ['/users/./1', "has a '.' segment"],
    ['/a/%2E%2e/users', "has a '%2E%2e' segment"],
    ['/stub\\v2', "has a backslash: a request's URL reads \\ as /"],
  ])('a path no request could reach (%s) is refused', async (path, message) => {
    const reply = await override({ path, response: { status: 200 } })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain(message)
  })

  it('a path of more than 64 segments is refused (each is compared with every request)', async () => {
    const path = (segments: number) => `/${Array.from({ length: segments }, (_, n) => n).join('/')}`
    expect((await override({ path: path(64), response: { status: 200 } })).status).toBe(201)
    const reply = await override({ path: path(65), response: { status: 200 } })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toBe(
      'validation failed: path: must have at most 64 segments, got 65',
    )
  })

  it('an unknown key is named once, without calling it strict mode', async () => {
    const reply = await override({ path: '/users', response: { status: 200 }, colour: 'red' })
    expect(reply.body.message).toBe('validation failed: colour: is not a known field')
  })

  it('many unknown keys: the first 50 named, the rest counted with every other problem', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))
    const reply = await override({ ...unknown, path: 'nope', response: { status: 200 } })
    expect(reply.status).toBe(422)
    const message = reply.body.message as string
    expect(message.startsWith('validation failed: k0: is not a known field; k1: ')).toBe(true)
    expect(message).toContain('k49: is not a known field; and 19951 more')
    expect(message).not.toContain('k50:')
  })

  it.each([
    ['query', '{"path":"/stub","query":{"__proto__":"x"},"response":{"status":299}}'],
    ['headers', '{"path":"/stub","headers":{"__proto__":"x"},"response":{"status":299}}'],
    ['response.headers', '{"path":"/stub","response":{"status":299,"headers":{"__proto__":"x"}}}'],
  ])('a condition or header named __proto__ in %s is refused, not dropped', async (field, text) => {
    const reply = await override(JSON.parse(text))
    expect(reply.status).toBe(422)
    expect(reply.body.message).toBe(
      `validation failed: ${field}.__proto__: is not a name it can hold`,
    )
    expect((await call('GET', '/stub', { token: null })).status).toBe(404)
  })

  it('so is one given in code, in a scenario, or in a sequence: the same rule where the override is parsed', () => {
    // JSON.parse makes `__proto__` an own key, as a data file or a scenario file would.
    const named = JSON.parse(
      '{"path":"/stub","headers":{"__proto__":"x"},"responses":[{"status":200},{"status":201,"headers":{"__proto__":"y"}}]}',
    )
    expect(() => sandbox.override(named)).toThrow(
      new TypeError(
        'Invalid override: headers.__proto__: is not a name it can hold; responses[1].headers.__proto__: is not a name it can hold',
      ),
    )
    expect(sandbox.overrides).toEqual([])
    expect(() => createSandbox({ overrides: [named] })).toThrow(
      /^Invalid override overrides\[0\]: headers\.__proto__: is not a name it can hold/,
    )
    expect(() =>
      createSandbox({
        scenarios: [{ name: 'proto', description: 'A hidden condition', overrides: [named] }],
      }),
    ).toThrow(/^Invalid scenario 'proto': overrides\[0\]: headers\.__proto__: is not a name/)
  })

  it('the known fields of a body with unknown keys are still checked', async () => {
    const reply = await override({
      path: 'nope',
      colour: 'red',
      response: { status: 200, shade: 'dark' },
    })
    expect(reply.body.message).toBe(
      'validation failed: colour: is not a known field; response.shade: is not a known field; path: must be a path starting with / (like /users/{user_id}), without a query, fragment, spaces or control characters',
    )
  })

  it('a sequence far past its limit is refused as too long, its items unread', async () => {
    const responses = Array.from({ length: 30_000 }, () => ({ status: 200, extra: 1 }))
    const reply = await override({ path: '/users', responses })
    expect(reply.status).toBe(422)
    // Said first; the items the list may have are checked, not the 29,900 after them.
    expect(reply.body.message).toMatch(
      /^validation failed: responses: must have at most 100 items; responses\[0\]\.extra: is not a known field; /,
    )
    expect(reply.body.message).toContain('responses[48].extra: is not a known field; and 51 more')
  })

  it('a path is described in words, not as a regular expression', async () => {
    const reply = await override({ path: 'users?x', response: { status: 200 } })
    expect(reply.body.message).toBe(
      'validation failed: path: must be a path starting with / (like /users/{user_id}), without a query, fragment, spaces or control characters',
    )
  })

  it('response and responses: exactly one', async () => {
    expect((await override({ path: '/users' })).body.message).toContain(
      'response: is required (or give responses, a sequence)',
    )
    const both = await override({
      path: '/users',
      response: { status: 200 },
      responses: [{ status: 200 }],
    })
    expect(both.body.message).toContain('responses: cannot be combined with response')
  })

  it('sandbox.override() refuses the same with a TypeError naming the field', () => {
    expect(() =>
      sandbox.override({
        path: '/users',
        response: { status: 200, headers: { 'X-Evil': 'a\nb' } },
      }),
    ).toThrow(/^Invalid override: response\.headers\.X-Evil: must not contain CR, LF, NUL/)
    expect(() =>
      createSandbox({ overrides: [{ path: '/users', response: { status: 99 } }] }),
    ).toThrow('Invalid override overrides[0]: response.status: must be from 100 to 599')
    // A hole, a list, a list longer than a sandbox keeps (counted before any is read: a
    // billion holes took minutes), what is no list.
    expect(() => createSandbox({ overrides: [undefined] as never })).toThrow(
      'Invalid override overrides[0]: override: must be an object, got undefined',
    )
    expect(() => createSandbox({ overrides: [[]] as never })).toThrow(
      'Invalid override overrides[0]: override: must be an object, got a list',
    )
    expect(() => createSandbox({ overrides: new Array(1e9) })).toThrow(
      'Invalid override overrides[1000]: one of 1000000000 overrides, past the 1000 a sandbox keeps (--max-overrides)',
    )
    expect(() => createSandbox({ overrides: 'x' as never })).toThrow(
      'Invalid sandbox options: overrides: must be a list of overrides',
    )
  })

  it('sandbox.override() refuses what JSON cannot carry, naming where it is: the routes answer on', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { response: { status: 200, data: 1n } },
        'response.data: must be JSON: a bigint is not JSON',
      ],
      [{ response: { status: 200, data: () => 1 } }, 'response.data: must be JSON: a function'],
      [
        { response: { status: 200, data: { list: [1, { at: new Date(0) }] } } },
        'response.data: must be JSON: a Date at .list[1].at is not JSON',
      ],
      [
        { response: { status: 200, body: { n: Number.NaN } } },
        'response.body: must be JSON: NaN at .n',
      ],
      [{ body: { qty: 2n }, response: { status: 200 } }, 'body: must be JSON: a bigint at .qty'],
      // Left out as JSON leaves it out, the condition was `{}`: it matched any body.
      [
        { body: { user: { n: undefined } }, response: { status: 200 } },
        'body: must be JSON: undefined at .user.n is no value a body has (a condition on it would match any)',
      ],
    ]
    for (const [input, message] of cases)
      expect(() => sandbox.override({ path: '/users', ...(input as object) } as never)).toThrow(
        `Invalid override: ${message}`,
      )
    expect(sandbox.overrides).toEqual([])
    const users = await call('GET', '/users')
    expect(users.status).toBe(200)
    expect(users.body.data.list.length).toBeGreaterThan(0)
  })
  it('sandbox.override() keeps a copy: what the caller changes afterwards is neither answered nor left unweighed', async () => {
    const data = { list: ['kept'] as unknown[] }
    const headers: Record<string, string> = { 'X-Stub': 'a' }
    const made = sandbox.override({ path: '/stub', response: { status: 200, data, headers } })
    data.list.push('x'.repeat(20_000_000))
    headers['X-Evil'] = 'a\r\nSet-Cookie: x=1'
    const reply = await call('GET', '/stub', { overridden: true })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ list: ['kept'] })
    expect(reply.headers.get('x-stub')).toBe('a')
    expect(reply.headers.get('x-evil')).toBeNull()
    expect(sandbox.overrides).toEqual([made].map(({ remove: _, ...listed }) => listed))
  })
})

describe('overrides match the paths the router accepts', () => {
  it('a template matches a trailing slash, as the router does; so does the journal filter', async () => {
    await override({ path: '/users/{user_id}', response: { status: 200, data: 'stub' } })
    const reply = await call('GET', '/users/3/', { overridden: true })
    expect(reply.body.data).toBe('stub')
    const journal = await call('GET', '/__sandbox/requests?path=/users/{user_id}', { token: null })
    expect(journal.body.data.total).toBe(1)
  })

  it('paths compare as the router sees them: encoded as a URL is, escapes in any case, nothing decoded', async () => {
    await override({ path: '/files/café', response: { status: 200, data: 'accent' } })
    expect((await call('GET', '/files/caf%C3%A9', { overridden: true })).body.data).toBe('accent')
    expect((await call('GET', '/files/caf%c3%a9/', { overridden: true })).body.data).toBe('accent')
    // The router does not decode `%33` into a user id: neither does a concrete override.
    await override({ path: '/users/3', response: { status: 200, data: 'three' } })
    const encoded = await call('GET', '/users/%33')
    expect(encoded.status).toBe(400)
    expect(encoded.body.message).toBe("user_id must be a positive integer, got '%33'")
  })

  it('on a path of the API, routing comes first: a method the route lacks is 405, whatever an override names', async () => {
    await override({ path: '/users/{user_id}', response: { status: 200, data: 'stub' } })
    const reply = await call('POST', '/users/3', { token: null, body: {} })
    expect(reply.status).toBe(405)
    expect(reply.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE')
    // With the method named too (CONTRACT C2: after routing, authentication and permission;
    // it answered 200 to a caller without a token).
    await override({ method: 'POST', path: '/users/{user_id}', response: { status: 202 } })
    await override({ method: 'DELETE', path: '/users', response: { status: 200, data: 'gone' } })
    for (const [method, path, allow] of [
      ['POST', '/users/3', 'GET, PUT, PATCH, DELETE'],
      ['DELETE', '/users', 'GET, POST'],
    ]) {
      for (const token of [null, undefined]) {
        const refused = await call(method!, path!, { token })
        expect(refused.status).toBe(405)
        expect(refused.body.code).toBe(40500)
        expect(refused.headers.get('allow')).toBe(allow)
      }
    }
    // On a path the API lacks, a method is stubbed without a token.
    await override({ method: 'POST', path: '/users/{user_id}/avatar', response: { status: 202 } })
    const stubbed = await call('POST', '/users/3/avatar', { token: null, overridden: true })
    expect(stubbed.status).toBe(202)
  })

  it('a 409 without a code answers the code Prefer: code=409 answers there: the route’s own, on a stub the API’s first', async () => {
    await override({ path: '/users/{user_id}', response: { status: 409 } })
    await override({ path: '/orders-export', response: { status: 409 } })
    const overridden = await call('GET', '/users/1', { overridden: true })
    const forced = await call('GET', '/users/2', { headers: { prefer: 'code=409' } })
    expect(overridden.status).toBe(409)
    expect(overridden.body).toEqual({ code: 40001, message: 'Username already taken', data: null })
    expect(forced.body.code).toBe(40001)
    const stub = await call('GET', '/orders-export', { token: null, overridden: true })
    expect(stub.body).toEqual({ code: 40001, message: 'Username already taken', data: null })
    // A route of no resource (sessions) forces the API's first too: a code B5 lists, not 40900.
    const session = await call('POST', '/sessions', {
      token: null,
      headers: { prefer: 'code=409' },
    })
    expect(session.status).toBe(409)
    expect(session.body.code).toBe(40001)
  })

  it("an override's 401, 405 and 429 carry the headers B4 and B5 require", async () => {
    await override({ path: '/products', method: 'GET', response: { status: 401 } })
    await override({ path: '/products', method: 'POST', response: { status: 405 } })
    await override({ path: '/orders', method: 'GET', response: { status: 429 } })
    const unauthorized = await call('GET', '/products', { overridden: true })
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer')
    const notAllowed = await call('POST', '/products', { body: {}, overridden: true })
    expect(notAllowed.headers.get('allow')).toBe('GET, POST')
    const limited = await call('GET', '/orders', { overridden: true })
    expect(limited.headers.get('retry-after')).toBe('1')
    await override({
      path: '/orders',
      method: 'GET',
      response: { status: 429, headers: { 'Retry-After': '30' } },
    })
    expect((await call('GET', '/orders', { overridden: true })).headers.get('retry-after')).toBe(
      '30',
    )
  })

  it('a stub path answers 405 with the methods its overrides name', async () => {
    await override({ method: 'GET', path: '/avatars', response: { status: 200 } })
    await override({ method: 'PUT', path: '/avatars', response: { status: 405 } })
    const reply = await call('PUT', '/avatars', { token: MEMBER, body: {}, overridden: true })
    expect(reply.status).toBe(405)
    expect(reply.headers.get('allow')).toBe('GET, PUT')
  })
})

describe('overrides are bounded per sandbox (CONTRACT C3)', () => {
  it('past maxOverrides adding one is 429 / 42900; one larger than overridesBytes is 413', async () => {
    const small = createSandbox({ maxOverrides: 2, overridesBytes: 64 * 1024 })
    const add = (body: unknown) =>
      small.fetch('/__sandbox/overrides', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await add({ path: '/a', response: { status: 200 } })).status).toBe(201)
    expect((await add({ path: '/b', response: { status: 200 } })).status).toBe(201)
    const full = await add({ path: '/c', response: { status: 200 } })
    expect(full.status).toBe(429)
    expect(full.headers.get('retry-after')).toBe('1')
    expect(await full.json()).toMatchObject({
      code: 42900,
      message: expect.stringMatching(/--max-overrides/),
    })
    await small.fetch('/__sandbox/overrides', { method: 'DELETE' })
    const huge = await add({ path: '/big', response: { status: 200, data: 'x'.repeat(100_000) } })
    expect(huge.status).toBe(413)
    expect(await huge.json()).toMatchObject({
      code: 41300,
      message: expect.stringMatching(/--overrides-bytes/),
    })
    // In code: a RangeError naming the flag.
    small.override({ path: '/a', response: { status: 200 } })
    small.override({ path: '/b', response: { status: 200 } })
    expect(() => small.override({ path: '/c', response: { status: 200 } })).toThrow(RangeError)
  })

  it("overrides count in their sandbox's memory estimate, by their shape, not their JSON's length", () => {
    const instance = sandbox.instance('measured')
    const before = instance.estimatedBytes
    instance.overrides.add({ path: '/x', response: { status: 200, data: 'y'.repeat(10_000) } })
    expect(instance.estimatedBytes - before).toBeGreaterThan(10_000)
    // 100,000 empty objects: 700 KB of JSON, some 6 MB of heap (V8 takes ~60 bytes an object).
    const middle = instance.estimatedBytes
    const empties = Array.from({ length: 100_000 }, () => ({}))
    instance.overrides.add({ path: '/y', response: { status: 200, body: empties } })
    expect(instance.estimatedBytes - middle).toBeGreaterThan(6_000_000)
  })

  it('an override nested deeper than 64 levels is refused before it is walked', () => {
    let deep: unknown = 1
    for (let level = 0; level < 5000; level++) deep = [deep]
    expect(() =>
      sandbox.override({ path: '/deep', response: { status: 200, body: deep } }),
    ).toThrow(
      'Invalid override: response.body: nests past the 64 levels an override may take (or holds a cycle)',
    )
    const cycle: Record<string, unknown> = { name: 'loop' }
    cycle.self = cycle
    expect(() =>
      sandbox.override({
        path: '/loop',
        responses: [{ status: 200 }, { status: 200, data: cycle }],
      }),
    ).toThrow(
      'Invalid override: responses[1]: nests past the 64 levels an override may take (or holds a cycle)',
    )
  })

  it('start overrides (the overrides option, --overrides) are every sandbox’s, again after a full reset', async () => {
    const started = createSandbox({
      overrides: [{ method: 'GET', path: '/ping', response: { status: 200, data: 'pong' } }],
    })
    const ping = (id?: string) =>
      started.fetch('/ping', id ? { headers: { 'x-sandbox-id': id } } : {}).then((r) => r.json())
    expect((await ping()).data).toBe('pong')
    expect((await ping('worker-1')).data).toBe('pong')
    await started.fetch('/__sandbox/overrides', { method: 'DELETE' })
    expect((await ping()).code).toBe(40400)
    await started.fetch('/__sandbox', { method: 'DELETE' })
    expect((await ping()).data).toBe('pong')
    expect(() =>
      createSandbox({
        maxOverrides: 1,
        overrides: [
          { path: '/a', response: { status: 200 } },
          { path: '/b', response: { status: 200 } },
        ],
      }),
    ).toThrow(/^Invalid override overrides\[1\]: one of 2 overrides, past the 1 a sandbox keeps/)
  })
})
