import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createSandbox, defineScenario } from '../../index.js'

// Quality bar: memory bounds hold under a small heap, and options are refused early, naming the
// field. A data set of 1,000,000 of every record is allowed by the counts' own bounds, but under
// a 512 MB heap generating it ran the process out of memory (30 s, then an abort); a scenario
// file asking for it did the same on its first PUT /__sandbox/scenario, a request anyone can
// send. Data sets are weighed before they are generated (resources/seed.ts seedWeightProblem).
const run = promisify(execFile)
const cli = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const folder = mkdtempSync(join(tmpdir(), 'seed-weight-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The CLI under a 256 MB heap: its exit code and what it wrote to stderr. */
async function serveSmallHeap(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(
      process.execPath,
      ['--max-old-space-size=256', cli, 'serve', '--port', '0', '--quiet', ...args],
      { timeout: 30_000 },
    )
    return { code: 0, stderr: '' }
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string }
    return { code, stderr }
  }
}

const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }

const weighed =
  /would take ~\d+ MB of memory \(estimated\), more than three fifths of the \d+ MB the heap has free: ask for fewer records, or give Node a larger heap \(node --max-old-space-size=<MB>\)/

describe('a data set that would not fit in the heap is refused before it is generated', () => {
  it('serve --users 1000000 --products 1000000 --orders 1000000 under a 256 MB heap: refused at start, naming the counts', async () => {
    const started = performance.now()
    const { code, stderr } = await serveSmallHeap(
      '--users',
      '1000000',
      '--products',
      '1000000',
      '--orders',
      '1000000',
    )
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /^shop-sandbox: Invalid sandbox options: counts: 1000000 users, 1000000 products and 1000000 orders would take/,
    )
    expect(stderr).toMatch(weighed)
    expect(stderr).not.toMatch(/heap out of memory/)
    // Refused on a sample of 200 records each, not after generating millions.
    expect(performance.now() - started).toBeLessThan(15_000)
  })

  it('a --scenarios file asking for it: refused at start, naming the scenario and data.counts', async () => {
    writeFileSync(
      join(folder, 'huge.json'),
      JSON.stringify({
        description: 'A million of everything',
        data: { seed: 1, counts: { users: 1_000_000, products: 1_000_000, orders: 1_000_000 } },
      }),
    )
    const { code, stderr } = await serveSmallHeap('--scenarios', folder)
    expect(code).toBe(1)
    expect(stderr).toMatch(/^shop-sandbox: Invalid scenario 'huge': data\.counts: 1000000 users/)
    expect(stderr).toMatch(weighed)
  })

  it('a scenario that fitted when the sandbox was made but no longer does: PUT /__sandbox/scenario is 429 / 42900, and the sandbox goes on', async () => {
    // The heap as the weighing reads it, made small after the sandbox is made (a real heap
    // cannot be shrunk on cue, and its limit for one --max-old-space-size differs by Node).
    const real = process.getBuiltinModule.bind(process)
    let free = 4 * 1024 ** 3
    const heap = { getHeapStatistics: () => ({ heap_size_limit: free, used_heap_size: 0 }) }
    const stub = vi
      .spyOn(process, 'getBuiltinModule')
      .mockImplementation(((id: string) => (id === 'node:v8' ? heap : real(id))) as never)
    try {
      const sandbox = createSandbox({
        scenarios: [
          defineScenario({
            name: 'wide',
            description: 'Many users',
            data: { counts: { users: 150_000 } },
          }),
        ],
      })
      free = 100 * 1024 * 1024
      const put = await sandbox.fetch('/__sandbox/scenario', {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({ name: 'wide' }),
      })
      expect(put.status).toBe(429)
      const body = (await put.json()) as { code: number; message: string; data: null }
      expect(body.code).toBe(42900)
      expect(body.data).toBeNull()
      expect(body.message).toMatch(
        /^Invalid scenario 'wide': data\.counts: 150000 users, 30 products and 100 orders would take ~\d+ MB of memory \(estimated\), more than three fifths of the 100 MB the heap has free/,
      )
      // Left as it was: still in its own scenario, answering.
      const after = await sandbox.fetch('/__sandbox', { headers: admin })
      expect(after.status).toBe(200)
      expect(((await after.json()) as { data: { scenario: string } }).data.scenario).toBe('default')
      expect(sandbox.scenario).toBe('default')
    } finally {
      stub.mockRestore()
    }
  })
})

describe('a data file that would not fit in the heap is not read', () => {
  it('serve --data <file of 60 MB> under a 256 MB heap: refused at start with its size, one line, exit 1', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'data-weight-'))
    try {
      const file = join(folder, 'data.json')
      const pad = 'x'.repeat(1024)
      const users = Array.from({ length: 60_000 }, (_, index) => ({ id: index + 1, name: pad }))
      writeFileSync(file, JSON.stringify({ users, products: [], orders: [] }))
      const { code, stderr } = await serveSmallHeap('--data', file)
      expect(code).toBe(1)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      expect(stderr).toMatch(
        /^shop-sandbox: data file .*data\.json is 60 MB, which would take ~300 MB of memory once read \(estimated\), more than three fifths of the \d+ MB the heap has free: give Node a larger heap/,
      )
      expect(stderr).not.toMatch(/heap out of memory/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it("a crash's log of 200 MB beside a small file: refused at start with its size, not read (nor taken for none)", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'data-weight-'))
    try {
      const file = join(folder, 'data.json')
      writeFileSync(file, JSON.stringify({ users: [], products: [], orders: [] }))
      // Sparse: its size says 200 MB, the disk holds none of it.
      const log = join(folder, '.data.json.log')
      writeFileSync(log, '')
      truncateSync(log, 200 * 2 ** 20)
      const { code, stderr } = await serveSmallHeap('--data', file)
      expect(code).toBe(1)
      expect(stderr).toMatch(
        /^shop-sandbox: the log of data file .*data\.json \(.*\.data\.json\.log\) is 200 MB, which would take ~\d+ MB of memory once read/,
      )
      expect(stderr).not.toMatch(/heap out of memory/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
