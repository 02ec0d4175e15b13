/**
 * `npm run bench:attacks`: the attacks of issue 14 against the built server, started as a user
 * would (`node --max-old-space-size=512 dist/bin/shop-sandbox.js`), each while a probe sends
 * `GET /users/1` every 20 ms. Reports per attack what the attacker got, the server's peak RSS,
 * the probe's p99 latency and failures, and whether the server survived; rewrites docs/security.md's
 * block between `<!-- attacks:start -->` and `<!-- attacks:end -->`.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { resolve } from 'node:path'
import { docPages, rewriteDocBlock } from './doc-block.js'

const repo = resolve(import.meta.dirname, '..')
const ADMIN = { authorization: 'Bearer sandbox-admin-token' }

interface Reply {
  status: number
  body: string
}

/** One request with exactly these headers (Host and Origin included), never throwing. */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Reply> {
  return new Promise((done) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      )
      res.on('error', () => done({ status: 0, body: '' }))
    })
    req.on('error', () => done({ status: 0, body: '' }))
    req.end(body)
  })
}

/** Runs `count` tasks, `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<Reply>) {
  const statuses = new Map<number, number>()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const reply = await task(next++)
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      }
    }),
  )
  return [...statuses].map(([status, n]) => `${n}× ${status || 'reset'}`).join(', ')
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

async function startServer(
  heapMb: number,
  flags: readonly string[],
): Promise<{
  base: string
  pid: number
  alive: () => boolean
  stop: () => void
}> {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      'dist/bin/shop-sandbox.js',
      'serve',
      '--port',
      '0',
      '--quiet',
      ...flags,
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let exited = false
  child.once('exit', () => (exited = true))
  const base = await new Promise<string>((resolveUrl, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (match) resolveUrl(match[1]!)
    })
    child.once('exit', () => reject(new Error(out)))
  })
  return { base, pid: child.pid!, alive: () => !exited, stop: () => child.kill('SIGKILL') }
}

const nested = (depth: number) => `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`

/** An attack: its name, what it does, and the server it meets (default: a 512 MB heap, no flags). */
type Attack = [
  name: string,
  run: (base: string) => Promise<string>,
  server?: { heapMb: number; flags: string[] },
]

const attacks: Attack[] = [
  [
    'a page on another origin wipes the data (200 × PUT /__sandbox/db, Origin: http://evil.example)',
    (base) =>
      pool(200, 8, () =>
        send(
          base,
          'PUT',
          '/__sandbox/db',
          { origin: 'http://evil.example', 'content-type': 'application/json' },
          '{"users":[],"products":[],"orders":[]}',
        ),
      ),
  ],
  [
    'DNS rebinding (200 × DELETE /__sandbox/db, Host: rebind.attacker.example:4010)',
    (base) =>
      pool(200, 8, () =>
        send(base, 'DELETE', '/__sandbox/db', { host: 'rebind.attacker.example:4010' }),
      ),
  ],
  [
    '1 MiB JSON bodies to POST /sessions, no token (400 requests)',
    (base) => {
      const body = JSON.stringify({
        email: 'x@example.com',
        password: 'x',
        pad: 'x'.repeat(1024 * 1024 - 80),
      })
      return pool(400, 8, () =>
        send(base, 'POST', '/sessions', { 'content-type': 'application/json' }, body),
      )
    },
  ],
  [
    '8 MB PUT /__sandbox/db into new X-Sandbox-Ids, no token (60 requests)',
    async (base) => {
      const user = JSON.parse((await send(base, 'GET', '/users/3', ADMIN)).body).data
      const users = Array.from({ length: 24_000 }, (_, i) => ({
        ...user,
        id: i + 1,
        name: `u_${i}`,
        email: `u${i}@example.com`,
      }))
      const document = JSON.stringify({ users, products: [], orders: [] }).slice(
        0,
        8 * 1024 * 1024 - 2,
      )
      const fitted =
        document.slice(0, document.lastIndexOf('},{') + 1) + '],"products":[],"orders":[]}'
      return pool(60, 2, (i) =>
        send(
          base,
          'PUT',
          '/__sandbox/db',
          { 'content-type': 'application/json', 'x-sandbox-id': `attack-${i}` },
          fitted,
        ),
      )
    },
  ],
  [
    'a 10 KB body nested 5,000 deep, then GET /__sandbox/requests (200 + 200 requests)',
    async (base) => {
      const sent = await pool(200, 8, () =>
        send(
          base,
          'POST',
          '/users',
          { ...ADMIN, 'content-type': 'application/json' },
          nested(5000),
        ),
      )
      const read = await pool(200, 8, () => send(base, 'GET', '/__sandbox/requests', {}))
      return `${sent}; journal reads: ${read}`
    },
  ],
  [
    'PUT /__sandbox/db with a user id of 2^53 − 1, then two creates',
    async (base) => {
      const document = JSON.parse((await send(base, 'GET', '/__sandbox/db')).body).data
      document.users.push({
        ...document.users[3],
        id: 2 ** 53 - 1,
        name: 'huge',
        email: 'huge@example.com',
      })
      const put = await send(
        base,
        'PUT',
        '/__sandbox/db',
        { 'content-type': 'application/json' },
        JSON.stringify(document),
      )
      const creates = await pool(2, 1, (i) =>
        send(
          base,
          'POST',
          '/users',
          { ...ADMIN, 'content-type': 'application/json' },
          JSON.stringify({ name: `c${i}`, email: `c${i}@example.com` }),
        ),
      )
      return `PUT ${put.status}; creates: ${creates}`
    },
  ],
  [
    'Prefer: code="500" on POST /users (100 requests), then count users',
    async (base) => {
      const before = JSON.parse((await send(base, 'GET', '/users?pageSize=1', ADMIN)).body).data
        .total
      const sent = await pool(100, 8, (i) =>
        send(
          base,
          'POST',
          '/users',
          { ...ADMIN, prefer: 'code="500"', 'content-type': 'application/json' },
          JSON.stringify({ name: `p${i}`, email: `p${i}@example.com` }),
        ),
      )
      const after = JSON.parse((await send(base, 'GET', '/users?pageSize=1', ADMIN)).body).data
        .total
      return `${sent}; users ${before} → ${after}`
    },
  ],
  [
    '10,000 POST /sessions, then the first token',
    async (base) => {
      const login = JSON.stringify({ email: 'member@example.com', password: 'password' })
      const first = JSON.parse(
        (await send(base, 'POST', '/sessions', { 'content-type': 'application/json' }, login)).body,
      ).data.token
      const sent = await pool(10_000, 16, () =>
        send(base, 'POST', '/sessions', { 'content-type': 'application/json' }, login),
      )
      const check = await send(base, 'GET', '/users/2', { authorization: `Bearer ${first}` })
      return `${sent}; first token: ${check.status}`
    },
  ],
  [
    'an override whose header holds CR LF, then a request to its path (issue 29)',
    async (base) => {
      const created = await send(
        base,
        'POST',
        '/__sandbox/overrides',
        { 'content-type': 'application/json' },
        JSON.stringify({
          path: '/users',
          response: { status: 200, headers: { 'X-Evil': 'a\r\nb' } },
        }),
      )
      const after = await send(base, 'GET', '/users', ADMIN)
      return `override ${created.status}; GET /users ${after.status}`
    },
  ],
  [
    '40 overrides of 1 MB each, no token, 192 MB heap (issue 29)',
    (base) =>
      pool(40, 2, (i) =>
        send(
          base,
          'POST',
          '/__sandbox/overrides',
          { 'content-type': 'application/json' },
          JSON.stringify({
            path: `/big/${i}`,
            response: { status: 200, data: 'x'.repeat(1_000_000) },
          }),
        ),
      ),
    { heapMb: 192, flags: [] },
  ],
  [
    '120 X-Sandbox-Ids of 30,000 users, each a sorted keyword page, 384 MB heap (issue 29)',
    async (base) => {
      const pages = await pool(120, 2, (i) =>
        send(base, 'GET', '/users?keyword=a&sort=name&order=desc&pageSize=5', {
          ...ADMIN,
          'x-sandbox-id': `big-${i}`,
        }),
      )
      const live = JSON.parse((await send(base, 'GET', '/__sandbox/sandboxes?pageSize=1')).body)
        .data.total
      return `${pages}; ${live} sandboxes live`
    },
    { heapMb: 384, flags: ['--users', '30000'] },
  ],
]

const rows: string[] = []
for (const [name, attack, options = { heapMb: 512, flags: [] }] of attacks) {
  const server = await startServer(options.heapMb, options.flags)
  const latencies: number[] = []
  let failures = 0
  let peak = rssMb(server.pid)
  let probing = true
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.pid))), 50)
  const probe = (async () => {
    while (probing) {
      const started = performance.now()
      const reply = await send(server.base, 'GET', '/users/1', ADMIN)
      latencies.push(performance.now() - started)
      if (reply.status !== 200) failures++
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  const outcome = await attack(server.base)
  probing = false
  await probe
  clearInterval(sampler)
  latencies.sort((a, b) => a - b)
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0
  rows.push(
    `| ${name} | ${outcome} | ${Math.round(peak)} MB | ${p99.toFixed(1)} ms | ${failures} of ${latencies.length} | ${server.alive() ? 'yes' : '**no**'} |`,
  )
  console.log(rows.at(-1))
  server.stop()
}

await rewriteDocBlock(docPages.security, 'attacks', [
  '<!-- attacks:start (npm run bench:attacks rewrites this block) -->',
  `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:attacks\` (Node ${process.versions.node}, server started with \`--max-old-space-size=512\` unless the row says otherwise, a probe \`GET /users/1\` every 20 ms during each attack):`,
  '',
  '| attack | what the attacker got | peak RSS | probe p99 | probe failures | still serving |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows,
  '<!-- attacks:end -->',
])
