import type { ChildProcess } from 'node:child_process'
import autocannon from 'autocannon'
import { startServer, stop } from './harness.js'

/** Statuses each kind of request may answer under the contract; anything else is a failure. */
const allowed: Record<string, number[]> = {
  read: [200],
  create: [201],
  update: [200],
  order: [201, 409, 422],
  cancel: [200, 409],
}

function memoryOf(child: ChildProcess): Promise<{ rssMb: number; heapMb: number }> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as { rssMb: number; heapMb: number }))
    child.send('rss')
  })
}

export interface SoakResult {
  phase: string
  requests: number
  rps: number
  p99: number
  nonContract: number
  rssStartMb: number
  rssEndMb: number
  heapStartMb: number
  heapEndMb: number
  growthPer100kMb: number
  heapGrowthPer100kMb: number
}

/**
 * Load and soak: the server under a mix of requests for a bounded time, counting answers
 * outside the contract and watching memory at both ends once collected (two full GCs half a second apart: servers/sandbox.ts). An unrecorded warm-up
 * first (V8 grows its young generation and code caches under load), then a read-only phase
 * (growth there would be a leak), then reads mixed with writes (which add records: some growth
 * is the data itself).
 */
export async function soak(users: number, seconds: number): Promise<SoakResult[]> {
  const server = await startServer('sandbox', [String(users), 'fast'])
  const results: SoakResult[] = []
  let n = 0
  const random = (max: number) => 1 + Math.floor(Math.random() * max)
  for (const phase of ['reads', 'reads + writes'] as const) {
    const nonContract = { count: 0 }
    const check = (kind: string) => (status: number) => {
      if (!allowed[kind]!.includes(status)) nonContract.count += 1
    }
    const reads = [
      {
        method: 'GET',
        setupRequest: (r: object) => ({ ...r, path: `/users/${random(users)}` }),
        onResponse: check('read'),
      },
      {
        method: 'GET',
        setupRequest: (r: object) => ({
          ...r,
          path: `/users?sort=name&page=${random(50)}&status=active`,
        }),
        onResponse: check('read'),
      },
      {
        method: 'GET',
        setupRequest: (r: object) => ({ ...r, path: `/users/${random(users)}/orders?pageSize=5` }),
        onResponse: check('read'),
      },
      {
        method: 'GET',
        path: '/products?keyword=a&sort=price&order=desc',
        onResponse: check('read'),
      },
    ]
    const writes = [
      {
        method: 'POST',
        path: '/users',
        setupRequest: (r: object) => ({
          ...r,
          body: JSON.stringify({ name: `soak-${n}`, email: `soak-${n++}@example.com` }),
        }),
        onResponse: check('create'),
      },
      {
        method: 'PATCH',
        setupRequest: (r: object) => ({
          ...r,
          path: `/users/${100 + random(100)}`,
          body: JSON.stringify({ status: n++ % 2 ? 'active' : 'inactive' }),
        }),
        onResponse: check('update'),
      },
      {
        method: 'POST',
        setupRequest: (r: object) => ({
          ...r,
          path: `/users/${random(users)}/orders`,
          body: JSON.stringify({ items: [{ productId: random(30), quantity: 1 }] }),
        }),
        onResponse: check('order'),
      },
      {
        method: 'PATCH',
        setupRequest: (r: object) => ({
          ...r,
          path: `/orders/${random(users * 2)}`,
          body: JSON.stringify({ status: 'cancelled' }),
        }),
        onResponse: check('cancel'),
      },
    ]
    if (phase === 'reads') {
      await autocannon({
        url: server.info.url,
        connections: 50,
        duration: Math.min(10, seconds),
        headers: { authorization: 'Bearer sandbox-admin-token' },
        requests: reads as autocannon.Request[],
      })
      nonContract.count = 0
    }
    const start = await memoryOf(server.child)
    const result = await autocannon({
      url: server.info.url,
      connections: 50,
      duration: seconds,
      headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
      requests: (phase === 'reads' ? reads : [...reads, ...writes]) as autocannon.Request[],
    })
    const end = await memoryOf(server.child)
    results.push({
      phase,
      requests: result.requests.total,
      rps: Math.round(result.requests.average),
      p99: result.latency.p99,
      nonContract: nonContract.count + result.errors + result.timeouts,
      rssStartMb: start.rssMb,
      rssEndMb: end.rssMb,
      heapStartMb: start.heapMb,
      heapEndMb: end.heapMb,
      growthPer100kMb: ((end.rssMb - start.rssMb) / result.requests.total) * 100_000,
      heapGrowthPer100kMb: ((end.heapMb - start.heapMb) / result.requests.total) * 100_000,
    })
  }
  await stop(server.child)
  return results
}
