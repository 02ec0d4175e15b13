import { request as rawRequest } from 'node:http'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { corsAllowedHeaders } from '../../http/cors-headers.js'
import { MEMBER } from '../support/client.js'
import { useSandboxServer } from '../support/over-http.js'

/** The same suite over both transports: the lean default, and MSW's own getResponse. */
describe.each(['fast', 'msw'] as const)('over real HTTP (%s transport)', (transport) => {
  const http = useSandboxServer({ transport })
  const { call, logLines } = http

  it('C2 over HTTP: a counted override with headers, a stub without a token, a dropped connection, the journal', async () => {
    const post = (body: unknown) => call('POST', '/__sandbox/overrides', { body, token: null })
    const counted = await post({
      method: 'GET',
      path: '/users/{user_id}',
      times: 1,
      response: { status: 503, headers: { 'Retry-After': '7' } },
    })
    expect(counted.status).toBe(201)
    const down = await call('GET', '/users/2')
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('7')
    expect(down.body).toEqual({ code: 50300, message: 'service unavailable', data: null })
    expect((await call('GET', '/users/2')).status).toBe(200)
    await post({ path: '/reports/{report_id}', response: { status: 200, body: ['raw'] } })
    const stub = await call('GET', '/reports/9', { token: null, overridden: true })
    expect(stub.body).toEqual(['raw'])
    await post({ path: '/products/1', times: 1, response: { drop: true } })
    await expect(call('GET', '/products/1')).rejects.toThrow()
    const journal = await call('GET', '/__sandbox/requests?path=/users/{user_id}&status=503', {
      token: null,
    })
    expect(journal.body.data.total).toBe(1)
    expect(journal.body.data.list[0].overrideId).toBe(counted.body.data.id)
    await call('DELETE', '/__sandbox/overrides', { token: null })
  })

  it('C2: the journal keeps the headers the client sent, not the X-Request-Id the server chose', async () => {
    const chosen = await call('GET', '/users/1', { headers: { 'x-trace': 'chosen' } })
    const echoed = await call('GET', '/users/1', {
      headers: { 'x-trace': 'echoed', 'x-request-id': 'my-id-1' },
    })
    expect(echoed.headers.get('x-request-id')).toBe('my-id-1')
    const journal = await call('GET', '/__sandbox/requests?order=desc&pageSize=20', { token: null })
    type Entry = {
      requestHeaders: Record<string, string>
      responseHeaders: Record<string, string>
    }
    const entry = (trace: string) =>
      (journal.body.data.list as Entry[]).find((e) => e.requestHeaders['x-trace'] === trace)!
    expect(entry('chosen').requestHeaders['x-request-id']).toBeUndefined()
    expect(entry('chosen').responseHeaders['x-request-id']).toBe(chosen.headers.get('x-request-id'))
    expect(entry('echoed').requestHeaders['x-request-id']).toBe('my-id-1')
    expect(entry('echoed').responseHeaders['x-request-id']).toBe('my-id-1')
  })

  it.each([
    {
      method: 'GET',
      path: '/users?status=active&sort=createdAt&order=desc&fields=id,name&pageSize=5',
      status: 200,
      code: 0,
    },
    { method: 'GET', path: '/users/1', status: 200, code: 0 },
    { method: 'GET', path: '/getUsers', status: 404, code: 40400 },
    { method: 'GET', path: '/users/create', status: 400, code: 40000 },
    { method: 'POST', path: '/users/create', status: 405, code: 40500 },
    { method: 'GET', path: '/users?pageSize=500', status: 400, code: 40000 },
    { method: 'GET', path: '/users', token: null, status: 401, code: 40100 },
    { method: 'GET', path: '/users', token: 'nope', status: 401, code: 40101 },
    { method: 'GET', path: '/users', token: MEMBER, status: 403, code: 40300 },
    { method: 'GET', path: '/users/999', status: 404, code: 40400 },
    {
      method: 'POST',
      path: '/users',
      body: { name: 'admin', email: 'x@example.com' },
      status: 409,
      code: 40001,
    },
    { method: 'POST', path: '/users', body: { name: 'x' }, status: 422, code: 42200 },
    { method: 'GET', path: '/products', token: MEMBER, status: 200, code: 0 },
    { method: 'GET', path: '/users/2/orders', token: MEMBER, status: 200, code: 0 },
  ])('$method $path → $status / $code', async ({ method, path, token, body, status, code }) => {
    const reply = await call(method, path, { token, body })
    expect(reply.status).toBe(status)
    expect(reply.body).toMatchObject({ code })
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(reply.headers.get('x-request-id')).toBeTruthy()
  })

  it('creates, reads, updates and deletes a user', async () => {
    const created = await call('POST', '/users', {
      body: { name: 'http-user', email: 'http@example.com' },
    })
    expect(created.status).toBe(201)
    const id = created.body.data.id
    expect(
      (await call('PATCH', `/users/${id}`, { body: { status: 'inactive' } })).body.data.status,
    ).toBe('inactive')
    expect((await call('DELETE', `/users/${id}`)).status).toBe(204)
    expect((await call('GET', `/users/${id}`)).status).toBe(404)
  })

  it('answers a CORS preflight 204 without a token, allowing the contract’s headers', async () => {
    const response = await fetch(`${http.server.url}/users`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        // The page's own headers too: an override's `headers` condition, a tracer's.
        'access-control-request-headers':
          'authorization, content-type, x-sandbox-id, X-Client,traceparent',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const allowed = response.headers.get('access-control-allow-headers')!.toLowerCase()
    for (const header of [
      'authorization',
      'content-type',
      'prefer',
      'x-sandbox-id',
      'x-sandbox-delay',
      'x-sandbox-scenario',
      'x-request-id',
      'x-client',
      'traceparent',
    ]) {
      expect(allowed).toContain(header)
    }
    // OPTIONS too: a stub may answer it (C2).
    expect(response.headers.get('access-control-allow-methods')).toBe(
      'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS',
    )
    expect(response.headers.get('x-request-id')).toBeTruthy()
    expect(response.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers')
    // A 204 carries no Content-Length (RFC 9110 section 8.6).
    expect(response.headers.get('content-length')).toBeNull()
  })

  it('allows no more than the contract’s headers when a preflight asks for what is no header list', async () => {
    const response = await fetch(`${http.server.url}/users`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x client, x:y',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-headers')).toBe(corsAllowedHeaders.join(','))
    // Nor past a few dozen names: a list of thousands is not echoed back.
    const long = await fetch(`${http.server.url}/users`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': Array.from({ length: 1000 }, (_, n) => `x-h${n}`).join(
          ',',
        ),
      },
    })
    expect(long.headers.get('access-control-allow-headers')).toBe(corsAllowedHeaders.join(','))
  })

  it('echoes the X-Request-Id a preflight sends', async () => {
    const response = await fetch(`${http.server.url}/users`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'x-request-id': 'preflight-7',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('x-request-id')).toBe('preflight-7')
  })

  it('exposes X-Request-Id to cross-origin callers', async () => {
    const reply = await call('GET', '/users/1', { headers: { origin: 'http://localhost:5173' } })
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
  })

  it('echoes X-Request-Id exactly once', async () => {
    const reply = await call('GET', '/users/1', { headers: { 'x-request-id': 'abc-123' } })
    expect(reply.headers.get('x-request-id')).toBe('abc-123')
  })

  it('413 / 41300 for a declared body over 1 MiB', async () => {
    const reply = await call('POST', '/users', {
      raw: JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    })
    expect(reply.status).toBe(413)
    expect(reply.body).toMatchObject({ code: 41300, data: null })
    // Regression: the unread body once left the keep-alive connection stuck for the next requests.
    for (let i = 0; i < 4; i++) expect((await call('GET', '/users/1')).status).toBe(200)
  })

  it('413 / 41300 for a streamed (chunked) body over 1 MiB, and keeps serving', async () => {
    const url = new URL(`${http.server.url}/users`)
    const status = await new Promise<number>((resolve, reject) => {
      const req = rawRequest(
        url,
        {
          method: 'POST',
          headers: {
            authorization: 'Bearer sandbox-admin-token',
            'content-type': 'application/json',
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      const chunk = 'x'.repeat(64 * 1024)
      for (let i = 0; i < 20; i++) req.write(chunk)
      req.end()
    })
    expect(status).toBe(413)
    expect((await call('GET', '/users/1')).status).toBe(200)
  })

  it('writes one log line per request: method, path, status, ms', async () => {
    await call('GET', '/users/3?fields=id')
    await expect
      .poll(() => logLines.some((line) => /^GET \/users\/3 200 \d+\.\dms$/.test(line)))
      .toBe(true)
  })
})

describe.each(['fast', 'msw'] as const)('a base path (%s transport)', (transport) => {
  const withBase = useSandboxServer({ basePath: '/api', transport })

  it('serves the resources under it and 404s elsewhere, still as envelopes', async () => {
    expect(withBase.server.url).toMatch(/\/api$/)
    expect((await withBase.call('GET', '/users/1')).status).toBe(200)
    const outside = await fetch(withBase.server.url.replace(/\/api$/, '/users/1'))
    expect(outside.status).toBe(404)
    expect(outside.headers.get('x-request-id')).toBeTruthy()
    expect(await outside.json()).toMatchObject({ code: 40400, data: null })
  })

  it('the journal shows the path sent; its filter takes it so, or relative to the base path', async () => {
    const sandbox = { 'x-sandbox-id': `journal-base-${transport}` }
    expect((await withBase.call('GET', '/users/3', { headers: sandbox })).status).toBe(200)
    const control = withBase.server.url.replace(/\/api$/, '/__sandbox/requests')
    const read = async (path: string) =>
      (await (await fetch(`${control}?path=${path}`, { headers: sandbox })).json()).data
    const all = await read('/users/3')
    expect(all.list.map((entry: { path: string }) => entry.path)).toEqual(['/api/users/3'])
    for (const path of ['/api/users/3', '/api/users/{user_id}', '/users/{user_id}'])
      expect((await read(path)).total).toBe(1)
    expect((await read('/api/users/4')).total).toBe(0)
    // A template is read under the base path or without it, never across it: `/api` is no id.
    expect((await read('/{resource}/users/3')).total).toBe(0)
    expect((await read('/{resource}/3')).total).toBe(1)
  })
})

describe.each(['fast', 'msw'] as const)('GET / (%s transport)', (transport) => {
  const withBase = useSandboxServer({ basePath: '/api', transport })
  const root = () => withBase.server.url.replace(/\/api$/, '/')

  it('is a page for a browser: console, reference, OpenAPI, tokens and how to sign in', async () => {
    const response = await fetch(root(), {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    const page = await response.text()
    for (const link of ['/__sandbox/ui', '/docs', '/openapi.json'])
      expect(page).toContain(`href="${link}"`)
    expect(page).toContain('sandbox-admin-token')
    expect(page).toContain('sandbox-member-token')
    expect(page).toContain('member@example.com')
    expect(page).toContain(`${root().slice(0, -1)}/api/sessions`)
  })

  it('the console page takes GET: another method is 405 with Allow, OPTIONS 204, as on control routes', async () => {
    const at = (method: string) => fetch(`${root()}__sandbox/ui`, { method })
    const posted = await at('POST')
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET'])
    expect((await posted.json()).code).toBe(40500)
    const options = await at('OPTIONS')
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET'])
  })

  it.each([
    ['a request that does not ask for HTML', 'GET', 'application/json'],
    ['a POST from a browser', 'POST', 'text/html'],
  ])('%s keeps the 404 envelope', async (_, method, accept) => {
    const response = await fetch(root(), { method, headers: { accept } })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ code: 40400, data: null })
  })
})

describe('CORS for clients that send no Origin (curl, servers, tests)', () => {
  const plain = useSandboxServer()

  it('are answered without CORS headers, and every answer says it varies by Origin', async () => {
    const response = await fetch(`${plain.server.url}/users/1`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(response.headers.get('access-control-expose-headers')).toBeNull()
    expect(response.headers.get('vary')).toBe('Origin')
    expect(response.headers.get('x-request-id')).toBeTruthy()
    // The same resource from an allowed origin carries them: a cache must not reuse one for the other.
    const cors = await fetch(`${plain.server.url}/users/1`, {
      headers: { authorization: 'Bearer sandbox-admin-token', origin: 'http://localhost:5173' },
    })
    expect(cors.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(cors.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
    expect(cors.headers.get('vary')).toBe('Origin')
  })

  it('answers a preflight 204 with the allowed methods and headers', async () => {
    const response = await fetch(`${plain.server.url}/users`, {
      method: 'OPTIONS',
      headers: {
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-headers')).toContain('Authorization')
    expect(response.headers.get('access-control-allow-methods')).toContain('DELETE')
    expect(response.headers.get('x-request-id')).toBeTruthy()
  })

  it('with --cors-origin, the listed origins are allowed too', async () => {
    const { createSandboxServer } = await import('../../node/index.js')
    const restricted = await createSandboxServer({
      port: 0,
      // A default port given is what a browser leaves out of the Origin it sends.
      corsOrigin: [
        'http://allowed.example',
        'https://secure.example:443',
        'http://zeros.example:080',
        // Five digits with leading zeros: the same port, by the same rule as a Host's.
        'https://padded.example:00443',
      ],
    })
    try {
      const ok = await fetch(`${restricted.url}/products`, {
        headers: { origin: 'http://allowed.example' },
      })
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://allowed.example')
      const secure = await fetch(`${restricted.url}/products`, {
        headers: { origin: 'https://secure.example' },
      })
      // Past the Origin check: the API's own 401 (no token), with the CORS headers.
      expect([secure.status, secure.headers.get('access-control-allow-origin')]).toEqual([
        401,
        'https://secure.example',
      ])
      const zeros = await fetch(`${restricted.url}/products`, {
        headers: { origin: 'http://zeros.example' },
      })
      expect(zeros.headers.get('access-control-allow-origin')).toBe('http://zeros.example')
      const padded = await fetch(`${restricted.url}/products`, {
        headers: { origin: 'https://padded.example' },
      })
      expect(padded.headers.get('access-control-allow-origin')).toBe('https://padded.example')
      const other = await fetch(`${restricted.url}/products`, {
        headers: { origin: 'http://other.example' },
      })
      expect(other.status).toBe(403)
      expect(other.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await restricted.close()
    }
  })
})

/** A request with exactly these headers (fetch would set Host itself). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const request = rawRequest(url, { headers }, (response) => {
        let body = ''
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode!, body, headers: response.headers }),
        )
      })
      request.on('error', reject)
      request.end()
    },
  )
}

describe('CONTRACT C3: Host and Origin checks', () => {
  const guarded = useSandboxServer()
  const admin = { authorization: 'Bearer sandbox-admin-token' }

  it.each(['localhost', 'localhost:4010', 'app.localhost', '127.0.0.1:9', '[::1]:4010'])(
    'Host %s is served',
    async (host) => {
      const reply = await rawGet(`${guarded.server.url}/users/1`, { ...admin, host })
      expect(reply.status).toBe(200)
    },
  )

  it.each(['rebind.attacker.example:4010', 'example.com', '192.168.1.20', 'localhost.evil.test'])(
    'Host %s (DNS rebinding) is refused 403 / 40300 naming the host and the flag, before anything runs',
    async (host) => {
      const reply = await rawGet(`${guarded.server.url}/__sandbox/db`, { host })
      expect(reply.status).toBe(403)
      const body = JSON.parse(reply.body)
      expect(body).toMatchObject({ code: 40300, data: null })
      expect(body.message).toContain(host)
      expect(body.message).toContain('--allowed-hosts')
    },
  )

  it.each([
    'http://evil.example',
    'https://localhost.evil.test',
    'null',
    'http://192.168.1.20:5173',
    // A loopback name, but no port a browser could have sent it from.
    'http://localhost:99999',
  ])(
    'Origin %s is refused 403 / 40300 naming the origin and --cors-origin, even for a preflight',
    async (origin) => {
      const reply = await fetch(`${guarded.server.url}/__sandbox/config`, {
        method: 'PATCH',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ errorRate: 1 }),
      })
      expect(reply.status).toBe(403)
      expect(reply.headers.get('access-control-allow-origin')).toBeNull()
      const body = await reply.json()
      expect(body).toMatchObject({ code: 40300, data: null })
      expect(body.message).toContain(`origin '${origin}'`)
      // The flag's own advice only for what it takes: `--cors-origin null` is refused at start,
      // as is a port past 65535.
      expect(body.message).toContain(
        origin === 'null' || origin.endsWith(':99999')
          ? "is not an origin --cors-origin can name: serve the page from an http(s) origin, or start the sandbox with --cors-origin '*'"
          : `start the sandbox with --cors-origin ${origin} (or --cors-origin '*')`,
      )
      const preflight = await fetch(`${guarded.server.url}/__sandbox/db`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT' },
      })
      expect(preflight.status).toBe(403)
      const config = await (await fetch(`${guarded.server.url}/__sandbox/config`)).json()
      expect(config.data.errorRate).toBe(0)
    },
  )

  it.each([
    'http://localhost:5173',
    'https://127.0.0.1',
    'http://[::1]:3000',
    'http://LOCALHOST:1',
  ])('Origin %s (loopback) gets CORS headers', async (origin) => {
    const reply = await fetch(`${guarded.server.url}/users/1`, { headers: { ...admin, origin } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('access-control-allow-origin')).toBe(origin)
  })

  it("--allowed-hosts adds names, 'all' turns the check off; --cors-origin '*' allows any origin", async () => {
    const { createSandboxServer } = await import('../../node/index.js')
    const named = await createSandboxServer({
      port: 0,
      allowedHosts: ['sandbox.test', '.apps.test'],
    })
    const open = await createSandboxServer({ port: 0, allowedHosts: 'all', corsOrigin: ['*'] })
    try {
      // `.apps.test`: that name and every name under it, as Vite reads it; nothing else.
      for (const [host, status] of [
        ['apps.test', 200],
        ['one.apps.test:5173', 200],
        ['a.b.apps.test', 200],
        ['evilapps.test', 403],
        ['apps.test.evil', 403],
      ] as const)
        expect((await rawGet(`${named.url}/users/1`, { ...admin, host })).status, host).toBe(status)
      expect(
        (await rawGet(`${named.url}/users/1`, { ...admin, host: 'sandbox.test:80' })).status,
      ).toBe(200)
      expect((await rawGet(`${named.url}/users/1`, { ...admin, host: 'other.test' })).status).toBe(
        403,
      )
      expect(
        (await rawGet(`${open.url}/users/1`, { ...admin, host: 'anything.test' })).status,
      ).toBe(200)
      const any = await fetch(`${open.url}/users/1`, {
        headers: { ...admin, origin: 'https://app.example.com' },
      })
      expect(any.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      // Allowed by `*` alone, it may not send the browser's cookies (a proxied session's):
      // only loopback and named origins get credentials.
      expect(any.headers.get('access-control-allow-credentials')).toBeNull()
      const local = await fetch(`${open.url}/users/1`, {
        headers: { ...admin, origin: 'http://localhost:5173' },
      })
      expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
      expect(local.headers.get('access-control-allow-credentials')).toBe('true')
      const preflight = await fetch(`${open.url}/users/1`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'authorization',
        },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    } finally {
      await Promise.all([named.close(), open.close()])
    }
  })
})

describe('C3: request bodies held in memory at once are bounded', () => {
  it.each(['fast', 'msw'] as const)(
    'past inFlightBodyBytes a body is refused 429 / 42900; every byte comes back to the budget (transport %s)',
    async (transport) => {
      const { createSandboxServer } = await import('../../node/index.js')
      const server = await createSandboxServer({
        port: 0,
        inFlightBodyBytes: 3 * 1024 * 1024,
        transport,
      })
      const url = new URL(`${server.url}/__sandbox/db`)
      const half = 800 * 1024
      // Padded with white space, which JSON allows between its tokens (a collection the API
      // lacks would be refused).
      const document = `{"users":[],"products":[],"orders":[]${' '.repeat(2 * half)}}`
      /** A PUT that sends the first part of its body, holds it, and finishes when told. */
      const slowPut = (id: string) => {
        let finish = () => {}
        const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = rawRequest(
            url,
            {
              method: 'PUT',
              headers: {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(document),
                'x-sandbox-id': id,
              },
            },
            (res) => {
              let body = ''
              res.on('data', (chunk) => (body += chunk))
              res.on('end', () => resolve({ status: res.statusCode!, body }))
            },
          )
          req.on('error', reject)
          req.write(document.slice(0, half))
          finish = () => req.end(document.slice(half))
        })
        return { reply, finish: () => finish() }
      }
      try {
        const puts = Array.from({ length: 5 }, (_, i) => slowPut(`b${i}`))
        await new Promise((resolve) => setTimeout(resolve, 300))
        for (const put of puts) put.finish()
        const replies = await Promise.all(puts.map((put) => put.reply))
        const statuses = replies.map((reply) => reply.status).sort()
        expect(statuses).toContain(200)
        expect(statuses).toContain(429)
        const refused = JSON.parse(replies.find((reply) => reply.status === 429)!.body)
        expect(refused).toMatchObject({ code: 42900, data: null })
        // Nothing leaked: one at a time, every body is read again.
        for (let i = 0; i < 4; i++) {
          const put = slowPut(`c${i}`)
          put.finish()
          expect((await put.reply).status).toBe(200)
        }
      } finally {
        await server.close()
      }
    },
  )
})

/**
 * `GET /__sandbox/db` on a connection of its own: the answer's `head` (status line), then, if
 * `reading`, the rest (`read` once all of it came).
 */
function askDb(port: number, reading: boolean) {
  const socket = connect(port, '127.0.0.1')
  socket.write(`GET /__sandbox/db HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
  let received = 0
  let whole = Number.POSITIVE_INFINITY
  let wholeAnswer: () => void
  const read = new Promise<void>((resolve) => (wholeAnswer = resolve))
  const head = new Promise<string>((resolve) => {
    let text = ''
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength
      if (received >= whole) wholeAnswer()
      if (whole !== Number.POSITIVE_INFINITY) return
      text += chunk.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0) return
      if (!reading) {
        socket.off('data', onData)
        socket.pause()
      }
      whole = end + 4 + Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0)
      if (received >= whole) wholeAnswer()
      resolve(text.slice(0, text.indexOf('\r\n')))
    }
    socket.on('data', onData)
  })
  return { socket, head, read }
}

/**
 * A server of ~18 MB of data document (more than the kernel's socket buffers take off it) and a
 * budget of 1 MB, with a client that asked for the document and reads none of it: the answer,
 * alone larger than the budget, is sent as the only one, and another is 429.
 */
async function withUnreadAnswer(
  transport: 'fast' | 'msw',
  timeouts: { stalledMs?: number },
  then: (port: number, unread: ReturnType<typeof askDb>) => Promise<void>,
) {
  const { createSandboxServer } = await import('../../node/index.js')
  const server = await createSandboxServer({
    port: 0,
    transport,
    users: 60_000,
    inFlightBodyBytes: 1024 * 1024,
    timeouts,
  })
  const port = Number(new URL(server.url).port)
  try {
    const unread = askDb(port, false)
    expect(await unread.head).toBe('HTTP/1.1 200 OK')
    const refused = askDb(port, true)
    expect(await refused.head).toBe('HTTP/1.1 429 Too Many Requests')
    refused.socket.destroy()
    await then(port, unread)
    unread.socket.destroy()
  } finally {
    await server.close()
  }
}

describe('C3: large answers not yet read are bounded too', () => {
  it.each(['fast', 'msw'] as const)(
    'a client that does not read an 18 MB answer holds its bytes; past inFlightBodyBytes another is 429 / 42900; the bytes come back when it goes (transport %s)',
    (transport) =>
      withUnreadAnswer(transport, {}, async (port, unread) => {
        // The client that did not read goes away: its bytes come back.
        unread.socket.destroy()
        await new Promise((resolve) => setTimeout(resolve, 100))
        const again = askDb(port, true)
        expect(await again.head).toBe('HTTP/1.1 200 OK')
        again.socket.destroy()
      }),
    30_000,
  )

  it.each(['fast', 'msw'] as const)(
    'a client that takes nothing of its answer for timeouts.stalledMs is cut, and its bytes come back (transport %s)',
    (transport) =>
      withUnreadAnswer(transport, { stalledMs: 1000 }, async (port) => {
        // The server cuts the connection that took nothing for a second (its client never goes,
        // and never reads the cut), and the next large answer is sent.
        const started = performance.now()
        let again = askDb(port, true)
        while ((await again.head) !== 'HTTP/1.1 200 OK') {
          expect(await again.head).toBe('HTTP/1.1 429 Too Many Requests')
          expect(performance.now() - started).toBeLessThan(10_000)
          again.socket.destroy()
          await new Promise((resolve) => setTimeout(resolve, 200))
          again = askDb(port, true)
        }
        // A client that reads is not cut: the whole answer (~18 MB) comes.
        await again.read
        again.socket.destroy()
      }),
    30_000,
  )
})
