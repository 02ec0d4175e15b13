import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { clientFor } from '../support/client.js'

describe('the Node server survives what overrides send, and the console works from an allowed host', () => {
  let server: SandboxServer
  beforeAll(async () => {
    server = await createSandboxServer({ port: 0, allowedHosts: ['sandbox.test'] })
  })
  afterAll(() => server.close())

  /** A raw request with the given Host and Origin (fetch does not let a caller set Host). */
  const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      })
      req.on('error', reject)
      req.end(body)
    })

  it('a hostile override is refused, the process answers on', async () => {
    const call = clientFor(server.url)
    const reply = await call('POST', '/__sandbox/overrides', {
      token: null,
      body: { path: '/users', response: { status: 200, headers: { 'X-Evil': 'a\r\nb' } } },
    })
    expect(reply.status).toBe(422)
    expect((await call('GET', '/users/1')).status).toBe(200)
  })

  it("the console's own origin may write, whatever host --allowed-hosts admits", async () => {
    const host = `sandbox.test:${server.port}`
    const reply = await raw(
      'POST',
      '/__sandbox/overrides',
      { host, origin: `http://${host}`, 'content-type': 'application/json' },
      JSON.stringify({ path: '/ping', response: { status: 200 } }),
    )
    expect(reply.status).toBe(201)
    // Another origin still needs --cors-origin.
    const other = await raw('GET', '/__sandbox', { host, origin: 'http://evil.test' })
    expect(other.status).toBe(403)
  })
})

describe('the last-resort guard: an answer that cannot be written is a logged 500, never a crash', () => {
  let server: SandboxServer
  const logged: unknown[] = []
  beforeAll(async () => {
    server = await createSandboxServer({
      port: 0,
      onUnexpectedError: (error) => logged.push(error),
    })
  })
  afterAll(() => server.close())

  it('an override stored past validation (a bad header) answers 500 and is journaled as 500', async () => {
    // add() trusts its input (the API and override() validate first): this skips validation.
    server.sandbox
      .instance()
      .overrides.add({ path: '/users', response: { status: 200, headers: { 'X-Evil': 'a\r\nb' } } })
    const call = clientFor(server.url)
    const reply = await call('GET', '/users')
    expect(reply.status).toBe(500)
    expect(reply.body).toEqual({ code: 50000, message: 'internal server error', data: null })
    expect(server.sandbox.requests({ path: '/users' }).at(-1)?.status).toBe(500)
    expect(logged).toHaveLength(1)
    expect((await call('GET', '/users/1')).status).toBe(200)
  })

  it('sendAnswer turns a header Node refuses into a 500 envelope', async () => {
    const { sendAnswer } = await import('../../server/respond.js')
    const { createServer } = await import('node:http')
    const errors: unknown[] = []
    const raw = createServer((req, res) =>
      sendAnswer(
        req,
        res,
        { status: 200, code: 0, headers: { 'x-evil': 'a\nb' }, body: '{}' },
        { 'x-request-id': 'r' },
        (error) => errors.push(error),
      ),
    )
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve))
    const { port } = raw.address() as { port: number }
    const response = await fetch(`http://127.0.0.1:${port}/`)
    expect(response.status).toBe(500)
    expect(response.headers.get('x-request-id')).toBe('r')
    expect((await response.json()).code).toBe(50000)
    expect(errors).toHaveLength(1)
    await new Promise((resolve) => raw.close(resolve))
  })
})

describe.each(['fast', 'msw'] as const)('bytes on the wire (--transport %s)', (transport) => {
  let server: SandboxServer
  beforeAll(async () => {
    server = await createSandboxServer({ port: 0, transport, allowedHosts: ['sandbox.test'] })
  })
  afterAll(() => server.close())

  /** Raw bytes of one answer. */
  const rawAnswer = (lines: string[]) =>
    new Promise<Buffer>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      const chunks: Buffer[] = []
      socket.on('data', (chunk) => chunks.push(chunk))
      socket.on('close', () => resolve(Buffer.concat(chunks)))
      socket.end(`${lines.join('\r\n')}\r\n\r\n`)
    })
  const add = (body: unknown) =>
    fetch(`${server.url}/__sandbox/overrides`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('a method Node’s parser does not know is 405 with Allow on a route, 404 elsewhere, as any method (CONTRACT B2)', async () => {
    const text = async (lines: string[]) => (await rawAnswer(lines)).toString('latin1')
    const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    const admin = 'Authorization: Bearer sandbox-admin-token'
    const foo = await text(['FOO /users HTTP/1.1', 'Host: 127.0.0.1', admin])
    expect(foo).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/)
    expect(foo).toMatch(/\r\nallow: GET, POST\r\n/i)
    expect(foo).toMatch(/\r\nconnection: close\r\n/i)
    expect(foo).toMatch(/\r\nx-request-id: [\w-]+\r\n/i)
    expect(bodyOf(foo)).toEqual({
      code: 40500,
      message: 'FOO is not allowed on /users; allowed: GET, POST',
      data: null,
    })
    // No route: 404, before the token is asked for (B4's order).
    const nowhere = await text(['PURGE /nowhere HTTP/1.1', 'Host: 127.0.0.1'])
    expect(nowhere).toMatch(/^HTTP\/1\.1 404 /)
    expect(bodyOf(nowhere).code).toBe(40400)
    // Methods are case-sensitive (RFC 9110): `delete` deletes nothing, `patch` with its body
    // is no PATCH (it was read as one, its body lost: 400 "the body is empty"), a method named
    // like an object's property names no operation.
    for (const [method, extra] of [
      ['delete', []],
      ['get', []],
      ['patch', ['Content-Type: application/json', 'Content-Length: 2', '', '{}']],
      ['constructor', []],
      ['__proto__', []],
    ] as const) {
      const lower = await text([`${method} /users/3 HTTP/1.1`, 'Host: 127.0.0.1', admin, ...extra])
      expect(lower).toMatch(/^HTTP\/1\.1 405 /)
      expect(lower).toMatch(/\r\nallow: GET, PUT, PATCH, DELETE\r\n/i)
      expect(bodyOf(lower)).toMatchObject({ code: 40500, data: null })
    }
    const kept = await fetch(`${server.url}/users/3`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(kept.status).toBe(200)
    // CONNECT to a path is a method its route does not take; to a host, a tunnel: 404.
    const connectTo = await text(['CONNECT /users/1 HTTP/1.1', 'Host: 127.0.0.1', admin])
    expect(connectTo).toMatch(/^HTTP\/1\.1 405 /)
    expect(connectTo).toMatch(/\r\nallow: GET, PUT, PATCH, DELETE\r\n/i)
    expect(bodyOf(connectTo).code).toBe(40500)
    const tunnel = await text([
      'CONNECT example.com:443 HTTP/1.1',
      'Host: 127.0.0.1',
      'X-Request-Id: tunnel-1',
    ])
    expect(tunnel).toMatch(/^HTTP\/1\.1 404 [^]*\r\nX-Request-Id: tunnel-1\r\n/)
    expect(bodyOf(tunnel).code).toBe(40400)
    expect(await text(['CONNECT /users/1 HTTP/1.1', 'Host: evil.test'])).toMatch(/^HTTP\/1\.1 403 /)
    // The Host check first, as for any request; a head HTTP does not allow stays a 400.
    expect(await text(['FOO /users HTTP/1.1', 'Host: evil.test'])).toMatch(/^HTTP\/1\.1 403 /)
    const broken = await text(['FOO /users HTTP/1.1', 'Host: 127.0.0.1', 'Bad Header: x'])
    expect(broken).toMatch(/^HTTP\/1\.1 400 /)
    expect(bodyOf(broken).message).toBe('malformed HTTP request')
  })

  it('such a request pipelined behind one still being answered is answered after it (it took the process down)', async () => {
    const admin = 'Authorization: Bearer sandbox-admin-token'
    for (const second of [
      'delete /users/3',
      'FOO /users/3',
      'CONNECT /users/3',
      'CONNECT a.test:443',
    ]) {
      const answer = (
        await rawAnswer([
          'GET /users/1 HTTP/1.1',
          'Host: 127.0.0.1',
          admin,
          'X-Sandbox-Delay: 50',
          '',
          `${second} HTTP/1.1`,
          'Host: 127.0.0.1',
          admin,
        ])
      ).toString('latin1')
      const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((found) => found[1])
      expect(statuses, second).toEqual(['200', second.includes(':443') ? '404' : '405'])
    }
    const alive = await fetch(`${server.url}/users/3`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(alive.status).toBe(200)
  })

  it('pipelined requests run one after the other: a GET behind a POST sees what it made', async () => {
    const admin = 'Authorization: Bearer sandbox-admin-token'
    const body = JSON.stringify({ name: 'Pipelined Write', email: 'pipelined.write@example.com' })
    const answer = (
      await rawAnswer([
        'POST /users HTTP/1.1',
        'Host: 127.0.0.1',
        admin,
        // The write takes a while: the GET behind it was answered first, without it.
        'X-Sandbox-Delay: 60',
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        `${body}GET /users?keyword=pipelined.write HTTP/1.1`,
        'Host: 127.0.0.1',
        admin,
        'Connection: close',
      ])
    ).toString('latin1')
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((found) => found[1])
    expect(statuses).toEqual(['201', '200'])
    const last = answer.slice(answer.lastIndexOf('\r\n\r\n') + 4)
    expect(JSON.parse(last).data).toMatchObject({ total: 1 })
  })

  it('bytes that are not HTTP behind whole requests: those are answered first, then 400 (a create was told only 400)', async () => {
    const admin = 'Authorization: Bearer sandbox-admin-token'
    const post = (name: string, delay: string) => {
      const body = JSON.stringify({ name, email: `${name.replace(' ', '.')}@example.com` })
      const head = ['POST /users HTTP/1.1', 'Host: 127.0.0.1', admin, `X-Sandbox-Delay: ${delay}`]
      return [...head, 'Content-Type: application/json', `Content-Length: ${body.length}`, '', body]
    }
    const statusesOf = (answer: Buffer) =>
      [...answer.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((found) => found[1])
    // Written without ending the socket: the server closes it after its 400.
    const behind = await new Promise<Buffer>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      const chunks: Buffer[] = []
      socket.on('data', (chunk) => chunks.push(chunk))
      socket.on('close', () => resolve(Buffer.concat(chunks)))
      const get = ['GET /users/1 HTTP/1.1', 'Host: 127.0.0.1', admin, 'X-Sandbox-Delay: 30', '']
      socket.write(`${[...get, ...post('Behind Bytes', '30')].join('\r\n')}x`)
    })
    expect(statusesOf(behind)).toEqual(['200', '201', '400'])
    // Inside a body (a chunk size that is no number), at once: that request can never be done.
    const broken = await rawAnswer([
      ...post('Never Made', '0').slice(0, 4),
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      '',
      '5\r\n{"nam\r\nZZ',
    ])
    expect(statusesOf(broken)).toEqual(['400'])
    const made = await fetch(`${server.url}/users?keyword=@example.com&pageSize=100`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    const names = ((await made.json()) as { data: { list: { name: string }[] } }).data.list.map(
      (user) => user.name,
    )
    expect(names).toContain('Behind Bytes')
    expect(names).not.toContain('Never Made')
  })

  it('a Latin-1 header value goes out as Latin-1 bytes, beside a body (not as UTF-8)', async () => {
    await add({
      path: '/users',
      method: 'GET',
      response: { status: 200, headers: { 'X-Ok': 'café' } },
    })
    const bytes = await rawAnswer([
      'GET /users HTTP/1.1',
      'Host: 127.0.0.1',
      'Authorization: Bearer sandbox-admin-token',
      'Connection: close',
    ])
    expect(bytes.includes(Buffer.from('x-ok: caf\xe9\r\n', 'latin1'))).toBe(true)
    expect(
      (
        await fetch(`${server.url}/users`, {
          headers: { authorization: 'Bearer sandbox-admin-token' },
        })
      ).headers.get('x-ok'),
    ).toBe('café')
    await fetch(`${server.url}/__sandbox/overrides`, { method: 'DELETE' })
  })

  it('205 Reset Content carries no content, as RFC 9110 says', async () => {
    await add({ path: '/users', method: 'GET', response: { status: 205, body: { a: 1 } } })
    const text = (
      await rawAnswer([
        'GET /users HTTP/1.1',
        'Host: 127.0.0.1',
        'Authorization: Bearer sandbox-admin-token',
        'Connection: close',
      ])
    ).toString('latin1')
    expect(text.startsWith('HTTP/1.1 205')).toBe(true)
    expect(text.split('\r\n\r\n')[1]).toBe('')
    await fetch(`${server.url}/__sandbox/overrides`, { method: 'DELETE' })
  })

  it("an override's Vary keeps the server's Vary: Origin", async () => {
    await add({
      path: '/users',
      method: 'GET',
      response: { status: 200, headers: { Vary: 'Accept' } },
    })
    const response = await fetch(`${server.url}/users`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(response.headers.get('vary')).toBe('Accept, Origin')
    await fetch(`${server.url}/__sandbox/overrides`, { method: 'DELETE' })
  })

  it('a Host with a trailing dot is the same host; an absolute-form target is checked too', async () => {
    const dotted = (
      await rawAnswer([
        `GET /__sandbox HTTP/1.1`,
        `Host: sandbox.test.:${server.port}`,
        'Connection: close',
      ])
    ).toString('latin1')
    expect(dotted.startsWith('HTTP/1.1 200')).toBe(true)
    const absolute = (
      await rawAnswer([
        `GET http://evil.test/users/1 HTTP/1.1`,
        'Host: 127.0.0.1',
        'Authorization: Bearer sandbox-admin-token',
        'Connection: close',
      ])
    ).toString('latin1')
    expect(absolute.startsWith('HTTP/1.1 403')).toBe(true)
    expect(absolute).toContain("host 'evil.test' is not allowed")
  })

  it('a dot segment never reaches another route; a request without Host gets the envelope', async () => {
    const call = clientFor(server.url)
    const overrides = async () =>
      (await call('GET', '/__sandbox/overrides', { token: null })).body.data.total as number
    const made = await call('POST', '/__sandbox/overrides', {
      token: null,
      body: { path: '/x', response: { status: 200 } },
    })
    expect(made.status).toBe(201)
    const before = await overrides()
    for (const target of [
      '/__sandbox/overrides/%2e%2e',
      '/__sandbox/overrides/.%2E',
      '/users/%2E/1',
    ]) {
      const answer = (
        await rawAnswer([`DELETE ${target} HTTP/1.1`, `Host: 127.0.0.1`, 'Connection: close'])
      ).toString('latin1')
      expect(answer.startsWith('HTTP/1.1 400'), target).toBe(true)
      expect(answer).toContain(
        '"message":"the request target has a percent-encoded . or .. segment (%2e); send the path it stands for"',
      )
    }
    // Nothing was reset: the override is still there.
    expect(await overrides()).toBe(before)
    const hostless = (
      await rawAnswer([
        'GET /users/1 HTTP/1.1',
        'Authorization: Bearer sandbox-admin-token',
        'Connection: close',
      ])
    ).toString('latin1')
    expect(hostless.startsWith('HTTP/1.1 200')).toBe(true)
    expect(hostless).toMatch(/\r\nx-request-id: \S+\r\n/i)
  })

  it('answers the server makes before the pipeline carry X-Request-Id and Vary: Origin too (B6); an unknown Expect is served', async () => {
    const answers = await Promise.all(
      [
        ['GET /users/1 HTTP/1.1', 'Host: evil.test'], // the Host check's 403
        ['GET /users/%2e/1 HTTP/1.1', 'Host: 127.0.0.1'], // a dot segment's 400
        ['GET /users/1 HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: x'], // not HTTP: 400
        ['GET /users/1 HTTP/1.1', 'Host: 127.0.0.1', 'Expect: teapot'], // 401: served
      ].map(async (lines) => (await rawAnswer([...lines, 'Connection: close'])).toString('latin1')),
    )
    expect(answers.map((answer) => answer.slice(9, 12))).toEqual(['403', '400', '400', '401'])
    // A head past Node's limit (16 KiB): said so, not "malformed".
    const long = (
      await rawAnswer([`GET /users?keyword=${'a'.repeat(17_000)} HTTP/1.1`, 'Host: 127.0.0.1'])
    ).toString('latin1')
    expect(long).toMatch(/^HTTP\/1\.1 400 /)
    expect(long).toContain(
      '"message":"request line and headers larger than 16 KiB (a query or a header too long)"',
    )
    for (const answer of answers) {
      expect(answer).toMatch(/\r\nx-request-id: \S+\r\n/i)
      expect(answer).toMatch(/\r\nvary: Origin\r\n/i)
    }
    expect(answers[3]).toContain('"code":40100')
  })

  it('Expect: 100-continue asks for the body when it is read: a 413 or 401 before goes out without it, and closes', async () => {
    /** What the server sends for a request whose head alone is sent (its body waits). */
    const head = (lines: string[]) =>
      new Promise<string>((resolve) => {
        const socket = connect(server.port, '127.0.0.1')
        let text = ''
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1')
          // Through MSW, 100 Continue at once; then the server waits for the body.
          if (transport === 'msw' && text.includes('\r\n\r\n')) socket.destroy()
        })
        socket.on('close', () => resolve(text))
        socket.write(`${lines.join('\r\n')}\r\n\r\n`)
      })
    const post = [
      'POST /users HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Expect: 100-continue',
      'Content-Length: 5000000',
    ]
    const [tooLarge, anonymous] = await Promise.all([
      head([...post, 'Authorization: Bearer sandbox-admin-token']),
      head(post),
    ])
    if (transport === 'fast') {
      expect(tooLarge).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/)
      expect(tooLarge).toContain('"code":41300')
      expect(anonymous).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/)
      for (const answer of [tooLarge, anonymous])
        expect(answer).toMatch(/\r\nconnection: close\r\n/i)
    } else
      for (const answer of [tooLarge, anonymous])
        expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/)
    // A request that will wait (a delay) is told to send its body before it waits: a client
    // waiting for 100 Continue does not meet the request timeout meanwhile.
    if (transport === 'fast') {
      const started = Date.now()
      const first = await new Promise<{ text: string; ms: number }>((resolve) => {
        const socket = connect(server.port, '127.0.0.1')
        socket.once('data', (chunk: Buffer) => {
          resolve({ text: chunk.toString('latin1'), ms: Date.now() - started })
          socket.destroy()
        })
        socket.write(
          `${[...post.slice(0, -1), 'Content-Length: 2', 'X-Sandbox-Delay: 1500', 'Authorization: Bearer sandbox-admin-token'].join('\r\n')}\r\n\r\n`,
        )
      })
      expect(first.text).toBe('HTTP/1.1 100 Continue\r\n\r\n')
      expect(first.ms).toBeLessThan(1000)
    }
    // A body that is wanted is asked for, then taken, on a connection kept alive.
    const name = `expect-${transport}`
    const body = JSON.stringify({ name, email: `${name}@example.com` })
    const created = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let continued = false
      const headers = {
        expect: '100-continue',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: 'Bearer sandbox-admin-token',
      }
      const req = httpRequest(`${server.url}/users`, { method: 'POST', headers }, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            continued,
            connection: res.headers.connection,
            name: (JSON.parse(text) as { data: { name: string } }).data.name,
          }),
        )
      })
      req.on('continue', () => {
        continued = true
        req.end(body)
      })
      req.on('error', reject)
    })
    expect(created).toEqual({ status: 201, continued: true, connection: 'keep-alive', name })
  })

  it("an override's 1xx is sent as the interim answer it is, then the connection closed (MSW: cut)", async () => {
    await add({
      path: '/products/2',
      times: 2,
      response: { status: 103, headers: { Link: '</app.css>; rel=preload' } },
    })
    const admin = 'Authorization: Bearer sandbox-admin-token'
    const lines = ['GET /products/2 HTTP/1.1', 'Host: 127.0.0.1', admin]
    // Pipelined behind a whole answer: that one first, then the 103, then nothing.
    const both = (
      await rawAnswer(['GET /users/1 HTTP/1.1', 'Host: 127.0.0.1', admin, '', ...lines])
    ).toString('latin1')
    expect(both.startsWith('HTTP/1.1 200')).toBe(true)
    const after = both.slice(both.indexOf('HTTP/1.1', 12))
    if (transport === 'fast') {
      expect(after).toMatch(/^HTTP\/1\.1 103 Early Hints\r\n/)
      expect(after).toMatch(/\r\nlink: <\/app\.css>; rel=preload\r\n/i)
      expect(after.endsWith('\r\n\r\n')).toBe(true)
    } else expect(both.indexOf('HTTP/1.1', 12)).toBe(-1)
    // A client that takes 1xx as interim (fetch) waits for a final answer that never comes.
    await expect(
      fetch(`${server.url}/products/2`, {
        headers: { authorization: 'Bearer sandbox-admin-token' },
      }),
    ).rejects.toThrow(TypeError)
  })

  it('a drop pipelined behind a large answer comes after all of it (a reset cut megabytes of it)', async () => {
    const big = await createSandboxServer({ port: 0, transport, users: 30_000, orders: 0 })
    try {
      const json = { 'content-type': 'application/json' }
      const response = { drop: true }
      const body = JSON.stringify({ path: '/products/1', response })
      await fetch(`${big.url}/__sandbox/overrides`, { method: 'POST', headers: json, body })
      const whole = (await (await fetch(`${big.url}/__sandbox/db`)).arrayBuffer()).byteLength
      expect(whole).toBeGreaterThan(5_000_000)
      const received = await new Promise<Buffer>((resolve) => {
        const socket = connect(big.port, '127.0.0.1')
        const chunks: Buffer[] = []
        socket.on('data', (chunk) => chunks.push(chunk))
        socket.on('error', () => {})
        socket.on('close', () => resolve(Buffer.concat(chunks)))
        const host = 'Host: 127.0.0.1\r\n'
        socket.write(
          `GET /__sandbox/db HTTP/1.1\r\n${host}\r\nGET /products/1 HTTP/1.1\r\n${host}Authorization: Bearer sandbox-admin-token\r\n\r\n`,
        )
      })
      const head = received.indexOf('\r\n\r\n')
      expect(received.subarray(0, 12).toString()).toBe('HTTP/1.1 200')
      expect(received.length - head - 4).toBe(whole)
    } finally {
      await big.close()
    }
  })

  it('a Host that names no host is refused without advice to allow it', async () => {
    for (const host of ['', 'localhost:80:81', 'a b', 'evil.test#.localhost', '127.0.0.1:99999']) {
      const answer = (
        await rawAnswer([`GET /__sandbox HTTP/1.1`, `Host: ${host}`, 'Connection: close'])
      ).toString('latin1')
      expect(answer.startsWith('HTTP/1.1 403')).toBe(true)
      expect(answer).toContain(`"message":"host '${host}' is not a host name"`)
    }
  })
})
