import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import { mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkDrift, reportJson } from '../../check/drift.js'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'

// Issue 43's findings at the newest surfaces (journal headers, proxy, record, check), each sent
// as the attacker sent it, over HTTP.
const admin = { authorization: 'Bearer sandbox-admin-token' }
const json = { ...admin, 'content-type': 'application/json' }

/** An upstream that answers what each test sets, and keeps what it was sent. */
let upstream: Server
let upstreamUrl = ''
let reply: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void = (_req, res) =>
  res.end()
const received: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = []
let folder = ''
let recording = ''
let server: SandboxServer

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      received.push({ headers: req.headers, body })
      reply(req, res, body)
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
  folder = await mkdtemp(join(tmpdir(), 'newest-edges-'))
  recording = join(folder, 'recording.json')
  // Item 3: a symlink planted where the recorder used to write its temp file.
  await writeFile(join(folder, 'victim.txt'), 'untouched\n')
  for (let pid = process.pid - 2; pid <= process.pid + 2; pid++)
    await symlink(join(folder, 'victim.txt'), join(folder, `.recording.json.${pid}.tmp`))
  server = await createSandboxServer({ port: 0, proxy: upstreamUrl, record: recording })
})

afterAll(async () => {
  await server.close()
  await new Promise((resolve) => upstream.close(resolve))
})

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now()
  const result = await work()
  return { result, ms: performance.now() - started }
}

describe('issue 43: one request never freezes the sandbox', () => {
  it('an override answering 250 KB of "token" answers at once, and so does a concurrent control call', async () => {
    const text = `{"note":"${'token'.repeat(50_000)}"}`
    const created = await fetch(`${server.url}/__sandbox/overrides`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ method: 'GET', path: '/tokens', response: { status: 200, text } }),
    })
    expect(created.status).toBe(201)
    const [stub, config] = await Promise.all([
      timed(() => fetch(`${server.url}/tokens`).then((response) => response.text())),
      timed(() => fetch(`${server.url}/__sandbox/config`).then((response) => response.status)),
    ])
    expect(stub.result).toBe(text)
    expect(config.result).toBe(200)
    expect(Math.max(stub.ms, config.ms)).toBeLessThan(1000)
    const journal = await timed(() =>
      fetch(`${server.url}/__sandbox/requests?path=/tokens&pageSize=100`).then((response) =>
        response.json(),
      ),
    )
    expect(journal.result.data.total).toBe(1)
    expect(journal.ms).toBeLessThan(1000)
  })

  it('strict mode naming an unknown 100 KB key answers 422 at once, the key clipped', async () => {
    await fetch(`${server.url}/__sandbox/config`, {
      method: 'PATCH',
      headers: json,
      body: '{"strict":true}',
    })
    try {
      const key = 'token'.repeat(20_000)
      const { result, ms } = await timed(async () => {
        const response = await fetch(`${server.url}/users`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ name: 'ada', email: 'ada@example.com', [key]: 1 }),
        })
        return { status: response.status, body: await response.json() }
      })
      expect(result.status).toBe(422)
      expect(result.body.code).toBe(42200)
      expect(result.body.message.length).toBeLessThan(1000)
      expect(result.body.message).toContain('is not a known field (strict mode)')
      expect(ms).toBeLessThan(1000)
    } finally {
      await fetch(`${server.url}/__sandbox/config`, {
        method: 'PATCH',
        headers: json,
        body: '{"strict":false}',
      })
    }
  })
})

describe('issue 43: --allowed-hosts all turns off the Host check, not the Origin check', () => {
  it('a DNS-rebinding page (Host and Origin evil.test) gets 403 with all; a host named one by one is same-origin', async () => {
    const open = await createSandboxServer({ port: 0, allowedHosts: 'all' })
    const named = await createSandboxServer({ port: 0, allowedHosts: ['app.test'] })
    try {
      for (const [target, host, status] of [
        [open, 'evil.test', 403],
        [named, 'app.test', 204],
      ] as const) {
        const response = await sendRaw(target.port, 'DELETE', '/__sandbox/db', {
          host: `${host}:${target.port}`,
          origin: `http://${host}:${target.port}`,
        })
        expect(response.status, host).toBe(status)
        if (status === 403) expect(JSON.parse(response.body).message).toContain('--cors-origin')
      }
    } finally {
      await open.close()
      await named.close()
    }
  })
})

describe('issue 43: the proxy and the recorder', () => {
  it('the recorder writes through no planted symlink, and writes no secret of a JSON answer', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          token: 'tok-1234567',
          access_token: 'acc-1234567',
          nested: { password: 'hunter2', apiKey: 'key-1234567', name: 'kept' },
          sessionId: 'sid-1234567',
          session_id: 'sid-7654321',
          sessions: 2,
        }),
      )
    }
    const response = await fetch(`${server.url}/login-echo`, { headers: admin })
    expect(response.status).toBe(200)
    await server.close()
    const recorded = await readFile(recording, 'utf8')
    expect(recorded).not.toMatch(/tok-1234567|acc-1234567|hunter2|key-1234567|sid-/)
    expect(JSON.parse(recorded)[0].response.body).toEqual({
      token: '[redacted]',
      access_token: '[redacted]',
      nested: { password: '[redacted]', apiKey: '[redacted]', name: 'kept' },
      sessionId: '[redacted]',
      session_id: '[redacted]',
      sessions: 2,
    })
    expect(await readFile(join(folder, 'victim.txt'), 'utf8')).toBe('untouched\n')
    // No temp file is left beside the recording.
    const left = (await readdir(folder)).filter((name) => /\.tmp$/.test(name))
    expect(left.every((name) => /\.recording\.json\.\d+\.tmp$/.test(name))).toBe(true)
    server = await createSandboxServer({ port: 0, proxy: upstreamUrl })
  })

  it('a gzip request body goes to the target with its Content-Encoding', async () => {
    reply = (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    }
    received.length = 0
    const body = gzipSync(JSON.stringify({ hello: 'world' }))
    const response = await fetch(`${server.url}/uploads`, {
      method: 'POST',
      headers: { ...json, 'content-encoding': 'gzip' },
      body,
    })
    expect(response.status).toBe(201)
    expect(received[0]!.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(gunzipSync(received[0]!.body).toString())).toEqual({ hello: 'world' })
  })

  it("the target's CORS never replaces the sandbox's own", async () => {
    reply = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'access-control-allow-origin': 'https://evil.test',
        'access-control-allow-credentials': 'true',
        vary: 'Accept',
      })
      res.end('{}')
    }
    const origin = 'http://localhost:5173'
    const response = await fetch(`${server.url}/cors-echo`, { headers: { ...admin, origin } })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe(origin)
    expect(response.headers.get('vary')).toMatch(/Origin/)
  })
})

describe('issue 43: bodies, the journal', () => {
  it('a body nested 5,000 deep to a route with a body-matching override is 400 / 40004, journaled', async () => {
    await fetch(`${server.url}/__sandbox/overrides`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        method: 'POST',
        path: '/users',
        body: { name: 'x' },
        response: { status: 503 },
      }),
    })
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const response = await fetch(`${server.url}/users`, {
      method: 'POST',
      headers: json,
      body: deep,
    })
    expect(response.status).toBe(400)
    expect((await response.json()).code).toBe(40004)
    const journal = await (
      await fetch(`${server.url}/__sandbox/requests?method=POST&path=/users&order=desc`)
    ).json()
    expect(journal.data.list[0].status).toBe(400)
  })

  it('x-api-key, x-auth-token and ?token= are redacted in the journal', async () => {
    await fetch(`${server.url}/products?token=t-secret-1&page=1`, {
      headers: { ...admin, 'x-api-key': 'k-secret-2', 'x-auth-token': 'a-secret-3' },
    })
    const journal = await (
      await fetch(`${server.url}/__sandbox/requests?path=/products&order=desc&pageSize=1`)
    ).json()
    const [entry] = journal.data.list
    expect(JSON.stringify(entry)).not.toMatch(/t-secret-1|k-secret-2|a-secret-3/)
    expect(entry.query).toEqual({ token: '[redacted]', page: '1' })
    expect(entry.requestHeaders['x-api-key']).toBe('***')
    expect(entry.requestHeaders['x-auth-token']).toBe('***')
    expect(entry.requestHeaders.authorization).toBe('Bearer ***')
  })
})

describe('issue 43: shop-sandbox check against a hostile target', () => {
  let hostile: Server
  let hostileUrl = ''
  let body = ''
  beforeAll(async () => {
    hostile = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'x' })
      res.end(body)
    })
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
    hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`
  })
  afterAll(() => new Promise((resolve) => hostile.close(resolve)))
  const envelope = (list: string) =>
    `{"code":0,"message":"success","data":{"list":[${list}],"total":1,"page":1,"pageSize":20}}`

  it('a record nested 20,000 deep is drift, not a crash', async () => {
    body = envelope(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)
    const report = await checkDrift(createSandbox().options.catalog, createSandbox(), {
      url: hostileUrl,
    })
    expect(report.reachable).toBe(true)
    expect(report.summary.drift).toBeGreaterThan(0)
  })

  it('4 MB of nested arrays is read in seconds, not minutes', async () => {
    const unit = `${'['.repeat(60)}${']'.repeat(60)}`
    body = envelope(
      Array(Math.floor(4e6 / (unit.length + 1)))
        .fill(unit)
        .join(','),
    )
    const { result, ms } = await timed(() =>
      checkDrift(createSandbox().options.catalog, createSandbox(), { url: hostileUrl }),
    )
    expect(result.summary.drift).toBeGreaterThan(0)
    expect(ms).toBeLessThan(20_000)
  }, 60_000)

  it('--json escapes C1 controls and line separators a target sent', () => {
    const text = reportJson({
      target: 'x',
      reachable: true,
      probes: [{ probe: 'p', ok: false, drift: ['\u009b31m\u0085\u2028'] }],
      summary: { probes: 1, ok: 0, drift: 1 },
    })
    expect(text).not.toMatch(/[\u007f-\u009f\u2028\u2029]/)
    expect(text).toContain('\\u009b31m\\u0085\\u2028')
    expect(JSON.parse(text).probes[0].drift[0]).toBe('\u009b31m\u0085\u2028')
  })
})

/** A request with headers fetch would not send as given (Host, Origin). */
function sendRaw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    import('node:http').then(({ request }) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
      req.end()
    }, reject)
  })
}
