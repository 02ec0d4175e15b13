import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { toFetchResponse } from '../../sandbox/msw-handlers.js'
import { unhandledOptions } from '../../sandbox/unhandled.js'
import { mswFrameOf } from '../../server/msw-transport.js'

// CONTRACT C4: --proxy, --record, and MSW's passthrough, against a small upstream of our own.
const admin = { authorization: 'Bearer sandbox-admin-token' }
const IMAGE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe, 0x01])
let upstream: Server
let upstreamUrl = ''
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = []

function answer(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  seen.push({ method: req.method!, url: req.url!, headers: req.headers })
  const url = new URL(req.url!, 'http://upstream')
  const json = (status: number, value: unknown, headers: OutgoingHttpHeaders = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(value))
  }
  switch (url.pathname.replace(/^\/v2/, '')) {
    case '/reports':
      return json(
        200,
        { code: 0, message: 'success', data: { list: [{ id: 1, title: 'Q3' }], total: 1 } },
        {
          'x-upstream': 'yes',
          'set-cookie': ['session=s3cr3t; HttpOnly', 'csrf=c5rf; Path=/'],
          'x-api-key': 'k-123',
          etag: '"r1"',
        },
      )
    case '/echo':
      return json(201, {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: body.toString('utf8'),
      })
    case '/token':
      return json(200, { scheme: 'Bearer', scope: 'read' })
    case '/page':
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
      return res.end('<h1>Not here</h1>')
    case '/gzip':
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      return res.end(gzipSync(JSON.stringify({ zipped: true })))
    case '/image':
      res.writeHead(200, { 'content-type': 'image/png' })
      return res.end(IMAGE)
    case '/slow':
      return setTimeout(() => json(200, { late: true }), 3000)
    case '/odd':
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, X-Secret, X-Hop',
        'x-secret': 'for this hop only',
        // Named like no secret: left out for being the connection's alone.
        'x-hop': 'for this hop only too',
        'x-kept': 'yes',
      })
      return res.end('{}')
    case '/999':
      res.writeHead(999, { 'content-type': 'application/json' })
      return res.end('{}')
    case '/moved':
      res.writeHead(302, { location: '/elsewhere' })
      return res.end()
    case '/search':
      return json(200, { search: url.search })
    case '/many-headers':
      res.writeHead(
        200,
        Object.fromEntries([
          ['content-type', 'application/json'],
          ...Array.from({ length: 60 }, (_, index) => [`x-h${index}`, `${index}`]),
        ]),
      )
      return res.end('{"many":true}')
    case '/deep':
      return json(200, JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`))
    case '/sized':
      return json(200, { pad: 'x'.repeat(Number(url.searchParams.get('n'))) })
    case '/later':
      return setTimeout(() => json(200, { later: true }), 200)
    case '/bomb':
      // 20 MB of spaces, some 20 kB on the wire.
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      return res.end(gzipSync(Buffer.alloc(20 * 1024 * 1024, ' ')))
    case '/big': {
      // 3 MB, the first 2 MB at once and the rest a little later: big answers overlap.
      const text = JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(text.slice(0, 2 * 1024 * 1024))
      return setTimeout(() => res.end(text.slice(2 * 1024 * 1024)), 300)
    }
    default:
      return json(404, { code: 40400, message: 'upstream has no such route', data: null })
  }
}

let server: SandboxServer
let folder = ''
let recording = ''

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => answer(req, res, Buffer.concat(chunks)))
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const address = upstream.address() as { port: number }
  upstreamUrl = `http://127.0.0.1:${address.port}`
  folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-proxy-'))
  recording = join(folder, 'recorded.json')
  server = await createSandboxServer({
    port: 0,
    proxy: `${upstreamUrl}/v2`,
    proxyTimeout: 500,
    record: recording,
  })
})
afterAll(async () => {
  await server?.close()
  upstream?.closeAllConnections()
  await new Promise((resolve) => upstream?.close(resolve))
  await rm(folder, { recursive: true, force: true })
})

describe('--proxy (CONTRACT C4)', () => {
  it('what the API serves never leaves the sandbox', async () => {
    const before = seen.length
    const user = await fetch(`${server.url}/users/1`, { headers: admin })
    expect(user.status).toBe(200)
    expect((await fetch(`${server.url}/users/9999`, { headers: admin })).status).toBe(404)
    expect((await fetch(`${server.url}/users`, { method: 'PATCH' })).status).toBe(405)
    expect(seen.length).toBe(before)
  })

  it('a path the API lacks goes to the target: status, headers and body as received, journaled proxied', async () => {
    const reply = await fetch(`${server.url}/reports?year=2026`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-upstream')).toBe('yes')
    expect(reply.headers.get('etag')).toBe('"r1"')
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    // Each cookie its own Set-Cookie line, as the target sent them.
    expect(reply.headers.getSetCookie()).toEqual(['session=s3cr3t; HttpOnly', 'csrf=c5rf; Path=/'])
    expect(await reply.json()).toEqual({
      code: 0,
      message: 'success',
      data: { list: [{ id: 1, title: 'Q3' }], total: 1 },
    })
    expect(seen.at(-1)!.url).toBe('/v2/reports?year=2026')
    const journal = await (await fetch(`${server.url}/__sandbox/requests?order=desc`)).json()
    expect(journal.data.list[0]).toMatchObject({ path: '/reports', status: 200, proxied: true })
    expect(journal.data.list[0].responseHeaders['set-cookie']).toBe('***')
    // The target's own 404 is relayed as it is.
    const missing = await fetch(`${server.url}/nowhere`)
    expect(missing.status).toBe(404)
    expect((await missing.json()).message).toBe('upstream has no such route')
  })

  it('relays JSON nested deeper than a body may be as it came, without parsing it', async () => {
    // 6 MB of nested lists held the loop 1.3 s in JSON.parse, for the business code.
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const reply = await fetch(`${server.url}/deep`)
      expect(reply.status).toBe(200)
      expect(await reply.text()).toBe(deep)
      // Parsed once: by the target, which makes it.
      expect(parse.mock.calls.filter(([text]) => text === deep)).toHaveLength(1)
    } finally {
      parse.mockRestore()
    }
    const journal = await (await fetch(`${server.url}/__sandbox/requests?order=desc`)).json()
    expect(journal.data.list[0]).toMatchObject({ path: '/deep', status: 200, proxied: true })
  })

  it('sends method, path, query, body and headers; not the hop-by-hop ones, not the sandbox’s own; Host for the target', async () => {
    const reply = await fetch(`${server.url}/echo?a=1&a=2`, {
      method: 'POST',
      headers: {
        ...admin,
        'content-type': 'application/json',
        'x-client': 'web',
        'x-sandbox-id': 'team-a',
        'x-sandbox-delay': '0',
      },
      body: JSON.stringify({ hello: 'upstream' }),
    })
    expect(reply.status).toBe(201)
    const echoed = await reply.json()
    expect(echoed.method).toBe('POST')
    expect(echoed.url).toBe('/v2/echo?a=1&a=2')
    expect(echoed.body).toBe('{"hello":"upstream"}')
    expect(echoed.headers).toMatchObject({
      authorization: 'Bearer sandbox-admin-token',
      'x-client': 'web',
      'content-type': 'application/json',
      host: new URL(upstreamUrl).host,
    })
    expect(echoed.headers['x-sandbox-id']).toBeUndefined()
    expect(echoed.headers['x-sandbox-delay']).toBeUndefined()
    expect(echoed.headers['accept-encoding']).toBe('identity')
    // A proxy says it forwarded (RFC 9110 section 7.6.3).
    expect(echoed.headers.via).toMatch(/^1\.1 shop-sandbox-[0-9a-f]{8}$/)
    // Journaled with the JSON body it forwarded, as an API request is.
    const journal = await fetch(`${server.url}/__sandbox/requests?order=desc&path=/echo`, {
      headers: { 'x-sandbox-id': 'team-a' },
    })
    expect((await journal.json()).data.list[0]).toMatchObject({
      proxied: true,
      requestBody: { hello: 'upstream' },
    })
  })

  it('relays HTML, bytes and a compressed answer decoded', async () => {
    const page = await fetch(`${server.url}/page`)
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await page.text()).toBe('<h1>Not here</h1>')
    const image = await fetch(`${server.url}/image`)
    expect(Buffer.from(await image.arrayBuffer())).toEqual(IMAGE)
    const zipped = await fetch(`${server.url}/gzip`)
    expect(zipped.headers.get('content-encoding')).toBeNull()
    expect(await zipped.json()).toEqual({ zipped: true })
  })

  it('a fault meets a forwarded request as an operation (--error-rate); a body too large by its Content-Length is 413 unread', async () => {
    server.sandbox.configure({ errorRate: 1 })
    try {
      expect([500, 503]).toContain((await fetch(`${server.url}/reports`)).status)
    } finally {
      server.sandbox.configure({ errorRate: 0 })
    }
    const before = seen.length
    const head = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      let text = ''
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
      socket.on('close', () => resolve(text))
      socket.write(
        'POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 5000000\r\n\r\n',
      )
    })
    expect(head).toMatch(/^HTTP\/1\.1 413 /)
    expect(seen.length).toBe(before)
  })

  it('an override answers before the proxy', async () => {
    const stub = await fetch(`${server.url}/__sandbox/overrides`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        path: '/reports',
        response: { status: 200, body: { stubbed: true } },
      }),
    })
    expect(stub.status).toBe(201)
    const before = seen.length
    expect(await (await fetch(`${server.url}/reports`)).json()).toEqual({ stubbed: true })
    expect(seen.length).toBe(before)
    await fetch(`${server.url}/__sandbox/overrides`, { method: 'DELETE' })
  })

  it('--transport msw relays the same answer, every Set-Cookie line included', async () => {
    const viaMsw = await createSandboxServer({
      port: 0,
      transport: 'msw',
      proxy: `${upstreamUrl}/v2`,
    })
    try {
      const reply = await fetch(`${viaMsw.url}/reports?year=2026`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get('x-upstream')).toBe('yes')
      expect(reply.headers.getSetCookie()).toEqual([
        'session=s3cr3t; HttpOnly',
        'csrf=c5rf; Path=/',
      ])
      expect((await reply.json()).data.total).toBe(1)
    } finally {
      await viaMsw.close()
    }
  })

  it('a slow target: 504 / 50400 after --proxy-timeout', async () => {
    const started = performance.now()
    const reply = await fetch(`${server.url}/slow`)
    expect(reply.status).toBe(504)
    const body = await reply.json()
    expect(body).toMatchObject({ code: 50400, data: null })
    expect(body.message).toContain(upstreamUrl)
    expect(performance.now() - started).toBeLessThan(2500)
  })

  it('a dead target: 502 / 50200 naming it; the sandbox goes on', async () => {
    const dead = await createSandboxServer({ port: 0, proxy: 'http://127.0.0.1:9' })
    try {
      const reply = await fetch(`${dead.url}/reports`)
      expect(reply.status).toBe(502)
      const body = await reply.json()
      expect(body.code).toBe(50200)
      expect(body.message).toBe(
        'the proxy target http://127.0.0.1:9 cannot be reached: ECONNREFUSED',
      )
      expect((await fetch(`${dead.url}/users/1`, { headers: admin })).status).toBe(200)
    } finally {
      await dead.close()
    }
  })

  it('a target that leads back to the sandbox is a loop: 502 / 50200 at once, not a socket per turn', async () => {
    const free = createServer()
    await new Promise<void>((done) => free.listen(0, '127.0.0.1', done))
    const port = (free.address() as AddressInfo).port
    await new Promise((done) => free.close(done))
    // Recording: the loop's own 502 is no answer of a real API to replay.
    const recorded = (name: string) => join(folder, `loop-${name}.json`)
    const self = await createSandboxServer({
      port,
      proxy: `http://127.0.0.1:${port}`,
      record: recorded('self'),
    })
    // Two sandboxes proxying to each other go round the same loop.
    const other = await createSandboxServer({ port: 0, proxy: self.url, record: recorded('other') })
    try {
      for (const url of [self.url, other.url]) {
        const reply = await fetch(`${url}/nowhere`)
        expect(reply.status).toBe(502)
        expect(await reply.json()).toMatchObject({ code: 50200, data: null })
      }
      const body = await (await fetch(`${self.url}/nowhere`)).json()
      expect(body.message).toBe(
        `the proxy target http://127.0.0.1:${port} leads back to this sandbox (a loop): give --proxy the real API's address`,
      )
      // The request that came back round is journaled as refused, not as forwarded: three
      // requests reached this one (its own two, the other's one), each came back once.
      const journal = await (await fetch(`${self.url}/__sandbox/requests?path=/nowhere`)).json()
      expect(
        journal.data.list.map((entry: { proxied?: boolean; status: number }) => [
          entry.status,
          entry.proxied ?? false,
        ]),
      ).toEqual(
        Array.from({ length: 3 }, () => [
          [502, false],
          [502, true],
        ]).flat(),
      )
      for (const name of ['self', 'other'])
        expect(JSON.parse(await readFile(recorded(name), 'utf8').catch(() => '[]'))).toEqual([])
      expect((await fetch(`${self.url}/users/1`, { headers: admin })).status).toBe(200)
    } finally {
      await other.close()
      await self.close()
    }
  })

  it('a compressed answer is held to --max-document-bytes decoded: a gzip bomb is 502, the sandbox goes on', async () => {
    const reply = await fetch(`${server.url}/bomb`)
    expect(reply.status).toBe(502)
    expect(await reply.json()).toMatchObject({
      code: 50200,
      message: `the proxy target ${upstreamUrl}/v2 answered more than 8388608 bytes (--max-document-bytes)`,
    })
    expect((await fetch(`${server.url}/users/1`, { headers: admin })).status).toBe(200)
  })

  it('big answers at once share the bodies budget: past it 429 / 42900, and it comes back', async () => {
    const small = await createSandboxServer({
      port: 0,
      proxy: upstreamUrl,
      inFlightBodyBytes: 5 * 1024 * 1024,
    })
    try {
      const replies = await Promise.all(Array.from({ length: 4 }, () => fetch(`${small.url}/big`)))
      const statuses = replies.map((reply) => reply.status).sort()
      expect(statuses).toContain(200)
      expect(statuses).toContain(429)
      const refused = replies.find((reply) => reply.status === 429)!
      expect(refused.headers.get('retry-after')).not.toBeNull()
      expect(await refused.json()).toMatchObject({
        code: 42900,
        message: 'too many large answers in flight; retry shortly',
      })
      await Promise.all(replies.map((reply) => (reply.bodyUsed ? null : reply.arrayBuffer())))
      // Released once relayed: one at a time, each fits.
      for (let i = 0; i < 3; i++) expect((await fetch(`${small.url}/big`)).status).toBe(200)
    } finally {
      await small.close()
    }
  })

  it('headers the target’s Connection names stay behind; a status HTTP does not define is 502', async () => {
    const odd = await fetch(`${server.url}/odd`)
    expect(odd.status).toBe(200)
    expect(odd.headers.get('x-kept')).toBe('yes')
    expect(odd.headers.get('x-secret')).toBeNull()
    expect(odd.headers.get('x-hop')).toBeNull()
    const weird = await fetch(`${server.url}/999`)
    expect(weird.status).toBe(502)
    expect((await weird.json()).message).toBe(
      `the proxy target ${upstreamUrl}/v2 answered status 999, which HTTP does not define`,
    )
  })

  it('a client that half-closes after its request still gets the answer', async () => {
    const socket = connect(server.port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    socket.end('GET /later HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await new Promise((resolve) => socket.once('close', resolve))
    expect(received).toMatch(/^HTTP\/1\.1 200 /)
    expect(received).toContain('{"later":true}')
  })

  it('options are refused early, naming the field', async () => {
    await expect(createSandboxServer({ port: 0, proxy: 'ftp://x' })).rejects.toThrow(/proxy/)
    await expect(createSandboxServer({ port: 0, proxy: 'not a url' })).rejects.toThrow(/proxy/)
    await expect(createSandboxServer({ port: 0, record: join(folder, 'r.json') })).rejects.toThrow(
      /record: .*proxy/,
    )
    await expect(createSandboxServer({ port: 0, passthrough: true })).rejects.toThrow(/passthrough/)
    const nowhere = join(folder, 'missing', 'r.json')
    await expect(
      createSandboxServer({ port: 0, proxy: upstreamUrl, record: nowhere }),
    ).rejects.toThrow(
      `cannot record to ${nowhere}: its folder ${join(folder, 'missing')} does not exist`,
    )
  })
})

describe('--record (CONTRACT C4)', () => {
  it('writes each proxied exchange as an override --overrides loads, without secrets; it replays without the target', async () => {
    await fetch(`${server.url}/reports?year=2026&token=qz9-query-secret`)
    await fetch(`${server.url}/page`)
    // The scheme word of the Authorization sent is no credential: an answer's "Bearer" stays.
    await fetch(`${server.url}/token`, { headers: admin })
    // A header the Connection header names is the connection's: relayed without it, recorded so.
    await fetch(`${server.url}/odd`)
    // A parameter given twice: an override's query holds one value (kept as the last, the replay
    // matched `?a=2` alone, never sent): not recorded, and said.
    const warnings = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect((await fetch(`${server.url}/search?a=1&a=2`)).status).toBe(200)
    await server.close()
    const said = warnings.mock.calls.map((call) => String(call[0]))
    warnings.mockRestore()
    expect(said).toContainEqual(
      "shop-sandbox: GET /search is not recorded: its query gives a more than once (an override's query holds one value a parameter)",
    )
    const recorded = JSON.parse(await readFile(recording, 'utf8'))
    expect(recorded.find((entry: { path: string }) => entry.path === '/odd').response).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-kept': 'yes' },
      body: {},
    })
    expect(recorded.find((entry: { path: string }) => entry.path === '/search')).toBeUndefined()
    const text = JSON.stringify(recorded)
    for (const secret of ['s3cr3t', 'k-123', 'sandbox-admin-token', 'qz9-query-secret'])
      expect(text).not.toContain(secret)
    const report = recorded.find(
      (entry: { path: string; query?: object }) =>
        entry.path === '/reports' && entry.query !== undefined,
    )
    expect(report).toEqual({
      method: 'GET',
      path: '/reports',
      query: { year: '2026' },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-upstream': 'yes', etag: '"r1"' },
        body: { code: 0, message: 'success', data: { list: [{ id: 1, title: 'Q3' }], total: 1 } },
      },
    })
    expect(recorded.find((entry: { path: string }) => entry.path === '/page').response).toEqual({
      status: 404,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      text: '<h1>Not here</h1>',
    })
    expect(
      recorded.find((entry: { path: string }) => entry.path === '/token').response.body,
    ).toEqual({ scheme: 'Bearer', scope: 'read' })
    // The same exchange twice is one override.
    const keys = recorded.map((entry: object) => JSON.stringify(entry))
    expect(new Set(keys).size).toBe(keys.length)

    const replay = await createSandboxServer({ port: 0, overrides: recorded })
    try {
      const reply = await fetch(`${replay.url}/reports?year=2026`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get('x-upstream')).toBe('yes')
      expect((await reply.json()).data.total).toBe(1)
      const page = await fetch(`${replay.url}/page`)
      expect(page.status).toBe(404)
      expect(await page.text()).toBe('<h1>Not here</h1>')
    } finally {
      await replay.close()
    }
  })
})

describe('--record, replayed as --overrides loads it', () => {
  it('stops at as many overrides as --overrides loads, saying so once', async () => {
    const file = join(folder, 'counted.json')
    const warnings = vi.spyOn(console, 'error').mockImplementation(() => {})
    const recorder = await createSandboxServer({
      port: 0,
      proxy: `${upstreamUrl}/v2`,
      record: file,
      maxOverrides: 2,
    })
    try {
      for (const query of ['?a=1', '?a=2', '?a=3', '?a=4'])
        expect((await fetch(`${recorder.url}/search${query}`)).status).toBe(200)
    } finally {
      await recorder.close()
    }
    const said = warnings.mock.calls.map((call) => String(call[0]))
    warnings.mockRestore()
    expect(said.filter((line) => line.includes('further exchanges are not recorded'))).toEqual([
      expect.stringMatching(
        /holds what --overrides loads at most \(2 overrides, --max-overrides\)/,
      ),
    ])
    const recorded = JSON.parse(await readFile(file, 'utf8'))
    expect(recorded.map((entry: { query: unknown }) => entry.query)).toEqual([
      { a: '1' },
      { a: '2' },
    ])
  })

  it('the specific after the general, one entry whatever the parameter order, within what --overrides loads, and what is not recorded said', async () => {
    const file = join(folder, 'bounded.json')
    const warnings = vi.spyOn(console, 'error').mockImplementation(() => {})
    const limits = { maxOverrides: 20, overridesBytes: 256 * 1024 }
    const recorder = await createSandboxServer({
      port: 0,
      proxy: `${upstreamUrl}/v2`,
      record: file,
      ...limits,
    })
    try {
      for (const path of [
        '/search?keyword=a',
        '/search',
        '/search?b=1&a=2',
        '/search?a=2&b=1',
        '/many-headers',
        '/deep',
        // A parameter named __proto__: a condition no override may hold, so not recorded (kept
        // as a plain object's key, it was dropped, and the replay answered every /search).
        '/search?__proto__=1',
      ])
        expect((await fetch(`${recorder.url}${path}`)).status).toBe(200)
      expect((await fetch(`${recorder.url}/moved`, { redirect: 'manual' })).status).toBe(302)
      // Some 100 kB each, against a 256 kB budget: the third and fourth are not recorded, and
      // a small exchange after them is (one too large used to end the recording).
      for (const n of [1, 2, 3, 4]) await fetch(`${recorder.url}/sized?n=100000&i=${n}`)
      expect((await fetch(`${recorder.url}/search?after=1`)).status).toBe(200)
    } finally {
      await recorder.close()
    }
    const said = warnings.mock.calls.map((call) => String(call[0]))
    warnings.mockRestore()
    expect(said).toContainEqual(
      'shop-sandbox: GET /deep is not recorded: its body nests deeper than an override may (64 levels in all)',
    )
    expect(said).toContainEqual(
      expect.stringMatching(
        /^shop-sandbox: GET \/search is not recorded: Invalid override: query.__proto__: /,
      ),
    )
    expect(
      said.filter((line) =>
        /^shop-sandbox: GET \/sized is not recorded: as an override it takes about \d+ bytes, and .+ would then hold more than --overrides loads \(about 262144 bytes of overrides, --overrides-bytes; \d+ held\)$/.test(
          line,
        ),
      ),
    ).toHaveLength(2)
    const recorded = JSON.parse(await readFile(file, 'utf8'))
    expect(recorded.filter((entry: { path: string }) => entry.path === '/search')).toHaveLength(4)
    expect(recorded).toContainEqual(
      expect.objectContaining({ path: '/search', query: { after: '1' } }),
    )
    const many = recorded.find((entry: { path: string }) => entry.path === '/many-headers')
    expect(Object.keys(many.response.headers)).toHaveLength(50)
    expect(recorded.filter((entry: { path: string }) => entry.path === '/sized')).toHaveLength(2)

    const replay = await createSandboxServer({ port: 0, overrides: recorded, ...limits })
    try {
      const search = async (query: string) =>
        (await (await fetch(`${replay.url}/search${query}`)).json()).search
      expect(await search('?keyword=a')).toBe('?keyword=a')
      expect(await search('')).toBe('')
      // A bodiless answer replays bodiless, not as an envelope made up for its status.
      const moved = await fetch(`${replay.url}/moved`, { redirect: 'manual' })
      expect(moved.status).toBe(302)
      expect(moved.headers.get('location')).toBe('/elsewhere')
      expect(await moved.text()).toBe('')
      // The later of the two orders replaced the earlier: one entry.
      expect(await search('?b=1&a=2')).toBe('?a=2&b=1')
    } finally {
      await replay.close()
    }
  })
})

describe('--record through a symlink', () => {
  it('writes where the link points; the link stays a link', async () => {
    const real = join(folder, 'real-recording.json')
    const link = join(folder, 'linked-recording.json')
    await writeFile(real, '[]')
    await symlink(real, link)
    const recorder = await createSandboxServer({
      port: 0,
      proxy: `${upstreamUrl}/v2`,
      record: link,
    })
    try {
      expect((await fetch(`${recorder.url}/search?q=1`)).status).toBe(200)
    } finally {
      await recorder.close()
    }
    expect((await lstat(link)).isSymbolicLink()).toBe(true)
    const recorded = JSON.parse(await readFile(real, 'utf8'))
    expect(recorded).toMatchObject([{ method: 'GET', path: '/search', query: { q: '1' } }])
  })
})

describe('passthrough in MSW (tests, the browser)', () => {
  it('requests under the base URL that no route answers go on to the network; the API stays mocked', async () => {
    const sandbox = createSandbox({ baseUrl: upstreamUrl, passthrough: true })
    const msw = setupServer(...sandbox.handlers)
    msw.listen(unhandledOptions('error'))
    try {
      const report = await fetch(`${upstreamUrl}/reports`)
      expect(report.headers.get('x-upstream')).toBe('yes')
      const user = await fetch(`${upstreamUrl}/users/1`, { headers: admin })
      expect((await user.json()).data.id).toBe(1)
      expect(sandbox.requests({ path: '/reports' })[0]).toMatchObject({ proxied: true })
    } finally {
      msw.close()
    }
    const plain = createSandbox({ baseUrl: upstreamUrl })
    expect((await plain.fetch(`${upstreamUrl}/reports`)).status).toBe(404)
  })
})

describe('several Set-Cookie lines stay several, on every writer', () => {
  const lines = ['session=s3cr3t; HttpOnly', 'csrf=c5rf; Path=/']

  it('an answer made for MSW (in-process, the browser)', () => {
    const response = toFetchResponse({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      code: 0,
      setCookies: lines,
    })
    expect(response.headers.getSetCookie()).toEqual(lines)
    expect(response.headers.get('content-type')).toBe('application/json')
  })

  it('the msw transport’s adapter writing a Fetch answer to node:http', async () => {
    const frame = await mswFrameOf([
      http.get('*/cookies', () => {
        const headers = new Headers()
        for (const line of lines) headers.append('set-cookie', line)
        return HttpResponse.json({ ok: true }, { headers })
      }),
    ])
    const local = createServer((req, res) =>
      frame(req, res, new URL(req.url!, `http://${req.headers.host}`), () => {
        res.writeHead(404)
        res.end()
      }),
    )
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = local.address() as { port: number }
      const reply = await fetch(`http://127.0.0.1:${port}/cookies`)
      expect(reply.headers.getSetCookie()).toEqual(lines)
      expect(await reply.json()).toEqual({ ok: true })
    } finally {
      local.closeAllConnections()
      await new Promise((resolve) => local.close(resolve))
    }
  })
})
