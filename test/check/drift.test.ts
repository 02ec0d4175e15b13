import { execFile } from 'node:child_process'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkDrift, reportLines } from '../../check/drift.js'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { addresses, categories } from '../support/extra-resources.js'

// CONTRACT C4's drift check: clean against the sandbox, each deviation of a deviant server on
// its own line, exit 0 / 1 / 2 from the command line.
const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const oracle = createSandbox()
const catalog = oracle.options.catalog
const tokens = { token: 'sandbox-admin-token', memberToken: 'sandbox-member-token' }

/** `shop-sandbox check` from the command line: its exit code and output. */
const run = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [bin, 'check', ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  )

let sandbox: SandboxServer
let deviant: Server
let deviantUrl = ''

/**
 * The sandbox behind a server that deviates in chosen ways, as a real API drifts: a renamed
 * payload field, a missing header, a wrong status, a record failing its schema, a query rule
 * ignored. Everything else is relayed as the sandbox answers it.
 */
function deviate(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const url = new URL(req.url!, 'http://deviant')
  // A query rule ignored: /products drops the status filter.
  if (url.pathname === '/products') url.searchParams.delete('status')
  const headers = { ...req.headers }
  delete headers.host
  fetch(`${sandbox.url}${url.pathname}${url.search}`, {
    method: req.method!,
    headers: headers as Record<string, string>,
    ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
  }).then(
    async (answer) => {
      const out: Record<string, string> = {}
      answer.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-encoding') out[name] = value
      })
      let status = answer.status
      let text = await answer.text()
      // A renamed payload field: orders' list is `items`.
      if (url.pathname === '/orders' && status === 200) text = text.replace('"list":', '"items":')
      // A missing header: one product has no X-Request-Id.
      if (url.pathname === '/products/1' && req.method === 'GET') delete out['x-request-id']
      // An X-Request-Id of its own, not the one sent (B3 says it is echoed).
      if (url.pathname === '/products/999999999') out['x-request-id'] = 'own-id'
      // The same on a list probe (sorting): every probe's answer is held to it.
      if (url.pathname === '/users' && url.searchParams.get('sort') === 'name')
        out['x-request-id'] = 'own-id'
      // A wrong status: a missing user is 200 with an error envelope.
      if (url.pathname === '/users/999999999') status = 200
      // A record failing its schema: the list's first user has an e-mail that is none.
      if (url.pathname === '/users' && url.search === '?pageSize=100' && req.method === 'GET')
        text = text.replace(/"email":"[^"]*"/, '"email":"not-an-email"')
      res.writeHead(status, out)
      res.end(text)
    },
    () => {
      res.writeHead(502)
      res.end()
    },
  )
}

beforeAll(async () => {
  sandbox = await createSandboxServer({ port: 0 })
  deviant = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => deviate(req, res, Buffer.concat(chunks)))
  })
  await new Promise<void>((resolve) => deviant.listen(0, '127.0.0.1', resolve))
  deviantUrl = `http://127.0.0.1:${(deviant.address() as { port: number }).port}`
})
afterAll(async () => {
  deviant?.closeAllConnections()
  await new Promise((resolve) => deviant?.close(resolve))
  await sandbox?.close()
})

describe('shop-sandbox check (CONTRACT C4)', () => {
  it('finds no drift in the sandbox itself, writes included, and leaves its data as it was', async () => {
    const before = await (await fetch(`${sandbox.url}/__sandbox`)).json()
    const report = await checkDrift(catalog, oracle, { url: sandbox.url, ...tokens, writes: true })
    expect(reportLines(report).filter((line) => line.startsWith('drift'))).toEqual([])
    expect(report.reachable).toBe(true)
    expect(report.summary.drift).toBe(0)
    // Every kind of probe the contract names is there.
    const names = report.probes.map((probe) => probe.probe).join('\n')
    for (const kind of [
      'paging',
      '(sort)',
      '(filter)',
      '(keyword search)',
      '(fields)',
      '(one record)',
      'a missing id: 404',
      'a bad page size: 400',
      'no token: 401',
      'a member may not list: 403',
      'an unknown route: 404',
      '405 with Allow',
      'preflight',
      '(create)',
      '(update)',
      'again: 409',
      'an empty body: 422',
      '(delete)',
    ])
      expect(names).toContain(kind)
    // Sorting on every sortable field, both ways (B3): it stopped at each resource's first four.
    for (const probe of [
      'GET /users?sort=updatedAt&order=desc (sort)',
      'GET /products?sort=stock&order=asc (sort)',
      'GET /orders?sort=updatedAt&order=asc (sort)',
    ])
      expect(names).toContain(probe)
    const after = await (await fetch(`${sandbox.url}/__sandbox`)).json()
    expect(after.data.counts).toEqual(before.data.counts)
  })

  it('checks resources of your own (defineResource) the same way', async () => {
    const options = { resources: [categories, addresses] }
    const own = await createSandboxServer({ port: 0, ...options })
    try {
      const report = await checkDrift(
        createSandbox(options).options.catalog,
        createSandbox(options),
        {
          url: own.url,
          ...tokens,
          writes: true,
        },
      )
      expect(reportLines(report).filter((line) => line.startsWith('drift'))).toEqual([])
      const names = report.probes.map((probe) => probe.probe)
      expect(names).toContain('GET /categories?sort=slug&order=desc (sort)')
      expect(names).toContain('POST /categories (the same slug again: 409 / 40910)')
      expect(names.some((name) => name.startsWith('GET /users/1/addresses'))).toBe(true)
      // Against the shop's own contract, the same server is fine too: its extra routes are not probed.
    } finally {
      await own.close()
    }
  })

  it('names each deviation of a deviant server on its own line', async () => {
    const report = await checkDrift(catalog, oracle, { url: deviantUrl, ...tokens })
    const drift = reportLines(report).filter((line) => line.startsWith('drift'))
    const expected = [
      /^drift: GET \/orders\?pageSize=100 .*: data has no list$/,
      /^drift: GET \/orders\?pageSize=100 .*: data has fields the contract lacks: items$/,
      /^drift: GET \/products\/1 \(one record\): no X-Request-Id header$/,
      /^drift: GET \/products\/999999999 .*: X-Request-Id own-id, expected the one sent, shop-sandbox-check-\d+$/,
      /^drift: GET \/users\?sort=name&order=(asc|desc) \(sort\): X-Request-Id own-id, expected the one sent, shop-sandbox-check-\d+$/,
      /^drift: GET \/users\/999999999 \(a missing id: 404\): status 200, expected 404$/,
      /^drift: GET \/users\?pageSize=100 .*: user 1: email: /,
      /^drift: GET \/products\?status=active \(filter\): record \d+ has status inactive: the filter was ignored$/,
    ]
    for (const pattern of expected)
      expect(
        drift.some((line) => pattern.test(line)),
        String(pattern),
      ).toBe(true)
    // Nothing else drifts: every line is one of the deviations (or what follows from them).
    const explained = drift.filter((line) => !expected.some((pattern) => pattern.test(line)))
    expect(
      explained.every((line) =>
        /^drift: (GET \/orders|GET \/users\/1 \(one record\): differs|GET \/users\/999999999 \(a missing id: 404\): code 40400 on a 200)/.test(
          line,
        ),
      ),
      explained.join('\n'),
    ).toBe(true)
    expect(report.summary.drift).toBeGreaterThanOrEqual(expected.length - 1)
  })

  it('from the command line: exit 0 clean, 1 with drift (--json for CI), 2 when the target cannot be reached', async () => {
    // Against the sandbox, no flag is needed: its own fixed admin token is the default.
    const clean = await run(sandbox.url)
    expect(clean.code).toBe(0)
    expect(clean.stdout.trim().split('\n').at(-1)).toMatch(
      /^\d+ probes against http:\S+: no drift$/,
    )

    const drifted = await run(deviantUrl, '--token', tokens.token, '--json')
    expect(drifted.code).toBe(1)
    const report = JSON.parse(drifted.stdout)
    expect(report).toMatchObject({ target: deviantUrl, reachable: true })
    expect(report.summary.drift).toBeGreaterThan(0)
    expect(
      report.probes.find((probe: { probe: string }) => probe.probe.startsWith('GET /products/1 '))
        .drift,
    ).toEqual(['no X-Request-Id header'])

    const closed = await createSandboxServer({ port: 0 })
    const { url } = closed
    await closed.close()
    const nothing = await run(url)
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toMatch(/^shop-sandbox check: cannot reach http:\S+: ECONNREFUSED\n$/)
    const bad = await run('not-a-url')
    expect(bad.code).toBe(2)
  }, 60_000)
})

describe('shop-sandbox check against a hostile target', () => {
  const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
  const override = (url: string, body: unknown) =>
    fetch(`${url}/__sandbox/overrides`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(body),
    })

  it('records off their schema are drift, not a crash; a target’s text stays on its line', async () => {
    const target = await createSandboxServer({ port: 0 })
    try {
      // An order whose items were renamed lines, as a real API drifts.
      await override(target.url, {
        method: 'GET',
        path: '/orders',
        response: {
          status: 200,
          data: {
            list: [{ id: 1, userId: 1, status: 'pending', lines: [], total: 0 }],
            total: 1,
            page: 1,
            pageSize: 20,
          },
        },
      })
      await override(target.url, {
        method: 'GET',
        path: '/products',
        query: { page: '2' },
        response: { status: 500, message: 'boom\r\nok:    GET /forged\u001b[31m' },
      })
      const report = await checkDrift(catalog, oracle, { url: target.url, ...tokens })
      const lines = reportLines(report)
      expect(report.reachable).toBe(true)
      expect(
        lines.some((line) => /^drift: GET \/orders\?pageSize=100 .*order 1: items/.test(line)),
      ).toBe(true)
      expect(lines.some((line) => line.startsWith('ok:    GET /forged'))).toBe(false)
      expect(
        lines.some((line) => line.includes('boom\\u000d\\u000aok:    GET /forged\\u001b[31m')),
      ).toBe(true)
      expect(lines.every((line) => !/[\r\u001b]/.test(line))).toBe(true)
    } finally {
      await target.close()
    }
  })

  it('a target that stalls mid-body, or answers without end, stops the check with its reason', async () => {
    const hostile = createServer((req, res) => {
      // The root answers (the check asks it first, to see the target is there at all).
      if (req.url === '/') {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end('{"code":40400,"message":"no route","data":null}')
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      if (req.url === '/users?pageSize=100') {
        // Endless: more than the 8 MiB an answer may take, as fast as the socket takes it.
        const chunk = Buffer.alloc(64 * 1024, 0x20)
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump)
        }
        pump()
      } else res.write('{"code":0,') // then nothing more: a stall
    })
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`
    try {
      const report = await checkDrift(catalog, oracle, { url, ...tokens, timeoutMs: 1500 })
      const lines = reportLines(report)
      expect(lines.join('\n')).toMatch(/an answer longer than 8388608 bytes: not read further/)
      expect(report.probes.at(-1)).toMatchObject({
        probe: '(the target stopped answering)',
        ok: false,
      })
      expect(report.probes.at(-1)!.drift[0]).toMatch(/^cannot reach http:\S+: .*(abort|timeout)/i)
    } finally {
      hostile.closeAllConnections()
      await new Promise((resolve) => hostile.close(resolve))
    }
  }, 30_000)

  it('--writes leaves alone a record it did not make, even when the target says it made it', async () => {
    const target = await createSandboxServer({ port: 0 })
    try {
      await override(target.url, {
        method: 'POST',
        path: '/products',
        times: 1,
        response: {
          status: 201,
          data: { id: 5, name: 'x', sku: 'ABC-1', price: 1, stock: 1, status: 'active' },
        },
      })
      const report = await checkDrift(catalog, oracle, { url: target.url, ...tokens, writes: true })
      const create = report.probes.find((probe) => probe.probe === 'POST /products (create)')
      expect(create?.drift).toContain(
        'the answer names product 5, which is not the record sent: left as it is (not updated, not deleted)',
      )
      expect((await fetch(`${target.url}/products/5`, { headers: admin })).status).toBe(200)
      const journal = await (
        await fetch(`${target.url}/__sandbox/requests?path=/products/5`)
      ).json()
      expect(
        journal.data.list.filter((entry: { method: string }) => entry.method !== 'GET'),
      ).toEqual([])
    } finally {
      await target.close()
    }
  })

  it('a bad --timeout or a URL with a password is refused (exit 2), the password not echoed', async () => {
    const negative = await run(sandbox.url, '--timeout', '-5')
    expect(negative.code).toBe(2)
    expect(negative.stderr).toMatch(/^shop-sandbox check: --timeout .*got -5\n$/)
    const word = await run(sandbox.url, '--timeout', 'abc')
    expect(word.code).toBe(2)
    expect(word.stderr).toMatch(/--timeout .*got NaN/)
    const secret = await run(sandbox.url.replace('http://', 'http://user:hunter2@'))
    expect(secret.code).toBe(2)
    expect(secret.stderr).toContain('must not carry a user or password')
    expect(secret.stderr).not.toContain('hunter2')
  }, 30_000)
})
