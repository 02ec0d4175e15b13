import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { createSandbox, seedData } from '../index.js'
import type { LoadResult } from './harness.js'
import { buildServers, load, medianMs, startServer, stop, table, warmUp } from './harness.js'
import { countsFor, scenarios } from './scenarios.js'
import { soak } from './soak.js'

/**
 * `npm run bench`: the sandbox server against a bare node:http baseline serving the same data,
 * measured in the same run (ratios, since these machines are noisy), at three data sizes; plus
 * in-process costs (seeding, reset, list queries) and a load-and-soak run. Prints one table
 * and each target as met or not, and writes the results under bench/results/.
 */
const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const seconds = Number(process.env.BENCH_DURATION ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

type Row = {
  size: number
  scenario: string
  sandbox: LoadResult
  baseline: LoadResult
  msw?: LoadResult
}
const rows: Row[] = []
const inProcess: Record<number, Record<string, number>> = {}

async function inProcessCosts(size: number) {
  const counts = countsFor(size)
  const seedMs = await medianMs(1, () => seedData(counts))
  const sandbox = createSandbox(counts)
  const costs: Record<string, number> = { seedMs }
  for (const scenario of scenarios.filter((s) => s.method === 'GET' && s.path.includes('?'))) {
    const request = () =>
      sandbox
        .fetch(scenario.path, { headers: { authorization: 'Bearer sandbox-admin-token' } })
        .then((r) => r.text())
    await request()
    costs[`${scenario.name} ms`] = await medianMs(size >= 100_000 ? 15 : 40, request)
  }
  sandbox.db.users.delete(5)
  costs.resetMs = await medianMs(size >= 100_000 ? 5 : 50, () => sandbox.reset())
  return costs
}

console.log(
  `shop-sandbox bench: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
)
console.log(`sizes ${sizes.join(', ')} users · ${seconds}s per run · ${connections} connections\n`)

await buildServers()
const small = createSandbox({ users: 100 })
small.db.users.delete(7)
const resetSmallMs = await medianMs(500, () => small.reset())

const servers: Record<number, Record<string, number>> = {}
for (const size of sizes) {
  inProcess[size] = await inProcessCosts(size)
  const sandbox = await startServer('sandbox', [String(size), 'fast'])
  const baseline = await startServer('baseline', [String(size)])
  const msw = await startServer('sandbox', [String(size), 'msw'])
  for (const server of [sandbox, baseline, msw]) await warmUp(server.info.url, scenarios)
  servers[size] = {
    startMs: sandbox.info.startMs!,
    rssMb: sandbox.info.rssMb!,
    settledRssMb: sandbox.info.settledRssMb!,
  }
  for (const scenario of scenarios) {
    const row: Row = {
      size,
      scenario: scenario.name,
      baseline: await load(baseline.info.url, scenario, seconds, connections),
      sandbox: await load(sandbox.info.url, scenario, seconds, connections),
    }
    if (scenario.name === 'by id' || scenario.name === 'first page')
      row.msw = await load(msw.info.url, scenario, seconds, connections)
    rows.push(row)
    console.log(
      `  ${size} users · ${scenario.name}: ${row.sandbox.rps} req/s (baseline ${row.baseline.rps})`,
    )
  }
  await Promise.all([stop(sandbox.child), stop(baseline.child), stop(msw.child)])
}

/**
 * Does a by-id read slow down with the data? Single runs on this kind of machine swing by ±10%,
 * so the smallest and largest data sets are served side by side and measured in alternating
 * rounds; the medians are compared.
 */
async function sizeIndependence(smallest: number, largest: number) {
  const small = await startServer('sandbox', [String(smallest), 'fast'])
  const large = await startServer('sandbox', [String(largest), 'fast'])
  const byId = scenarios[0]!
  await warmUp(small.info.url, [byId])
  await warmUp(large.info.url, [byId])
  const runs: Record<'small' | 'large', number[]> = { small: [], large: [] }
  for (let round = 0; round < 5; round++) {
    const order = round % 2 ? (['large', 'small'] as const) : (['small', 'large'] as const)
    for (const which of order) {
      const url = (which === 'small' ? small : large).info.url
      runs[which].push((await load(url, byId, Math.max(2, seconds / 2), connections)).rps)
    }
  }
  await Promise.all([stop(small.child), stop(large.child)])
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  return { small: median(runs.small), large: median(runs.large), runs }
}

const independence =
  sizes.length > 1 ? await sizeIndependence(Math.min(...sizes), Math.max(...sizes)) : null
if (independence) {
  console.log(
    `\nby id, alternating rounds: ${independence.runs.small.join(', ')} req/s at ${Math.min(...sizes)} users; ${independence.runs.large.join(', ')} at ${Math.max(...sizes)}`,
  )
}

const soakSeconds = Number(process.env.SOAK_DURATION ?? 20)
console.log(`\nload and soak: 10000 users, ${soakSeconds}s per phase`)
const soaked = await soak(10_000, soakSeconds)

const ratio = (row: Row) => row.sandbox.rps / row.baseline.rps
console.log(
  `\n${table(
    [
      'users',
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'baseline req/s',
      'ratio',
      'msw transport req/s',
    ],
    rows.map((row) => [
      row.size,
      row.scenario,
      row.sandbox.rps,
      row.sandbox.p50,
      row.sandbox.p99,
      row.sandbox.errors,
      row.baseline.rps,
      `${Math.round(ratio(row) * 100)}%`,
      row.msw ? `${row.msw.rps} (${Math.round((row.msw.rps / row.baseline.rps) * 100)}%)` : '',
    ]),
  )}`,
)
console.log(
  `\n${table(
    [
      'users',
      'seed ms',
      'server start ms',
      'RSS MB',
      'settled RSS MB',
      'reset ms',
      'first page ms',
      'filtered ms',
      'nested ms',
    ],
    sizes.map((size) => [
      size,
      Math.round(inProcess[size]!.seedMs!),
      Math.round(servers[size]!.startMs!),
      Math.round(servers[size]!.rssMb!),
      Math.round(servers[size]!.settledRssMb!),
      inProcess[size]!.resetMs!.toFixed(3),
      inProcess[size]!['first page ms']!.toFixed(3),
      inProcess[size]!['filtered + sorted + keyword ms']!.toFixed(3),
      inProcess[size]!['nested orders page ms']!.toFixed(3),
    ]),
  )}`,
)

console.log(
  `\n${table(
    [
      'soak phase',
      'requests',
      'req/s',
      'p99 ms',
      'non-contract',
      'RSS MB start → end',
      'heap MB start → end',
      'RSS MB / 100k req',
      'heap MB / 100k req',
    ],
    soaked.map((s) => [
      s.phase,
      s.requests,
      s.rps,
      s.p99,
      s.nonContract,
      `${Math.round(s.rssStartMb)} → ${Math.round(s.rssEndMb)}`,
      `${Math.round(s.heapStartMb)} → ${Math.round(s.heapEndMb)}`,
      s.growthPer100kMb.toFixed(1),
      s.heapGrowthPer100kMb.toFixed(1),
    ]),
  )}`,
)

const find = (size: number, scenario: string) =>
  rows.find((row) => row.size === size && row.scenario === scenario)
const largest = Math.max(...sizes)
const smallest = Math.min(...sizes)
const targets = [
  ...(independence
    ? [
        {
          target: `GET /users/{id} at ${largest} users within 10% of ${smallest} users (medians of 5 alternating runs)`,
          value: independence.large / independence.small,
          met: (v: number) => v >= 0.9,
          show: (v: number) => `${Math.round(v * 100)}%`,
        },
      ]
    : []),
  ...sizes.flatMap((size) =>
    ['by id', 'first page'].map((scenario) => ({
      target: `${scenario} at ${size} users ≥ 40% of baseline`,
      value: ratio(find(size, scenario)!),
      met: (v: number) => v >= 0.4,
      show: (v: number) => `${Math.round(v * 100)}%`,
    })),
  ),
  {
    target: `filtered + sorted + keyword at ${largest} users: median service time < 30 ms`,
    value: inProcess[largest]!['filtered + sorted + keyword ms']!,
    met: (v: number) => v < 30,
    show: (v: number) => `${v.toFixed(2)} ms`,
  },
  {
    target: `seeding ${largest} users with their orders < 3 s`,
    value: inProcess[largest]!.seedMs!,
    met: (v: number) => v < 3000,
    show: (v: number) => `${Math.round(v)} ms`,
  },
  {
    target: `RSS after seeding ${largest} users (settled) < 300 MB`,
    value: servers[largest]!.settledRssMb!,
    met: (v: number) => v < 300,
    show: (v: number) => `${Math.round(v)} MB`,
  },
  {
    target: 'reset() of a 100-user sandbox < 1 ms',
    value: resetSmallMs,
    met: (v: number) => v < 1,
    show: (v: number) => `${v.toFixed(3)} ms`,
  },
  ...soaked.map((s) => ({
    target: `soak (${s.phase}): 0 answers outside the contract`,
    value: s.nonContract,
    met: (v: number) => v === 0,
    show: (v: number) => String(v),
  })),
  {
    target: 'soak (reads, after warm-up, after GC): RSS growth < 10 MB per 100k requests (no leak)',
    value: soaked[0]!.growthPer100kMb,
    met: (v: number) => v < 10,
    show: (v: number) => `${v.toFixed(1)} MB`,
  },
]
console.log(
  `\n${table(
    ['target', 'measured', 'met'],
    targets.map((t) => [t.target, t.show(t.value), t.met(t.value) ? 'met' : 'NOT MET']),
  )}`,
)

const folder = new URL('./results/', import.meta.url)
await mkdir(folder, { recursive: true })
const file = new URL(`bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, folder)
await writeFile(
  file,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      settings: { sizes, seconds, connections },
      load: rows,
      inProcess,
      servers,
      resetSmallMs,
      soak: soaked,
      sizeIndependence: independence,
      targets: targets.map((t) => ({ target: t.target, value: t.value, met: t.met(t.value) })),
    },
    null,
    2,
  ),
)
console.log(`\nresults written to ${file.pathname}`)
