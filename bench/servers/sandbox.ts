import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeapSpaceStatistics } from 'node:v8'
import { createSandboxServer } from '../../node/index.js'
import { countsFor } from '../scenarios.js'
import { reportCpu } from './report-cpu.js'

/**
 * The sandbox server as users run it (bundled to plain JavaScript by the bench, as `npm run build` would compile it). Reports how long it took to
 * seed and start, and its memory (RSS) after start and once collected ({@link collected}).
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
console.log(
  JSON.stringify({ url: server.url, startMs, rssMb, settledRssMb: (await collected()).rssMb }),
)

reportCpu()
/**
 * Memory once the server has sat idle: V8's memory reducer, some 10-25 s after the last
 * allocation-heavy GC, releases the young generation seeding grew and compacts the old one. Its
 * sign is the young generation shrinking; read 2 s later (it runs up to three GCs, 0.5 s apart),
 * or at {@link IDLE_WAIT_MS} if it never came.
 */
const IDLE_WAIT_MS = 60_000
process.on('message', (message) => {
  if (message !== 'idle-rss') return
  const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!
  const grown = young().space_size
  const began = performance.now()
  const poll = setInterval(() => {
    const waited = performance.now() - began
    if (young().space_size >= grown / 2 && waited < IDLE_WAIT_MS) return
    clearInterval(poll)
    setTimeout(() => {
      process.send?.({
        idleRssMb: process.memoryUsage().rss / 1e6,
        idleSeconds: (performance.now() - began) / 1000,
        reduced: waited < IDLE_WAIT_MS,
      })
    }, 2000)
  }, 250)
})
/**
 * Memory once collected (GC is exposed in the bench), so what it reads is memory still held: a
 * full GC, and another after V8's concurrent sweeper has finished (half a second each). Read
 * after one GC, RSS kept whatever old-space pages the sweep had not yet handed back: on one
 * server under the soak's reads it read 180-225 MB at seven points while the heap in use stayed
 * at 34-37 MB, old space holding 47-98 MB of pages; collected this way, 134-146 MB with old space
 * at 33-45 (2026-11-27, docs/performance.md).
 */
async function collected(): Promise<{ rssMb: number; heapMb: number }> {
  for (let round = 0; round < 2; round++) {
    ;(globalThis as { gc?: () => void }).gc?.()
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  const { rss, heapUsed } = process.memoryUsage()
  return { rssMb: rss / 1e6, heapMb: heapUsed / 1e6 }
}

process.on('message', (message) => {
  if (message === 'rss') void collected().then((memory) => process.send?.(memory))
})
