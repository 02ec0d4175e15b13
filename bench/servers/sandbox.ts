import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSandboxServer } from '../../node/index.js'
import { countsFor } from '../scenarios.js'
import { reportCpu } from './report-cpu.js'

/**
 * The sandbox server as users run it (bundled to plain JavaScript by the bench, as `npm run build` would compile it). Reports how long it took to
 * seed and start, and its memory (RSS) after start and once settled (after a full GC).
 */
const [users, transport = 'fast', data = 'none'] = process.argv.slice(2)
const started = performance.now()
const server = await createSandboxServer({
  port: 0,
  ...countsFor(Number(users)),
  transport: transport as 'fast' | 'msw',
  // `data`: a data file in a fresh temp folder, every write acknowledged once durable.
  ...(data === 'none'
    ? {}
    : {
        data: join(mkdtempSync(join(tmpdir(), 'shop-sandbox-bench-')), 'data.json'),
        dataFormat: data === 'compact' ? ('compact' as const) : ('pretty' as const),
      }),
})
const startMs = performance.now() - started
const rssMb = process.memoryUsage().rss / 1e6
;(globalThis as { gc?: () => void }).gc?.()
await new Promise((resolve) => setTimeout(resolve, 300))
console.log(
  JSON.stringify({
    url: server.url,
    startMs,
    rssMb,
    settledRssMb: process.memoryUsage().rss / 1e6,
  }),
)

reportCpu()
/** Memory after a full GC (GC is exposed in the bench), so growth means memory still held. */
process.on('message', (message) => {
  if (message !== 'rss') return
  ;(globalThis as { gc?: () => void }).gc?.()
  const { rss, heapUsed } = process.memoryUsage()
  process.send?.({ rssMb: rss / 1e6, heapMb: heapUsed / 1e6 })
})
