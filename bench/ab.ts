import { resolve } from 'node:path'
import { buildServerOf, generator, medianPair, PAIRS, sideBySide, startServer } from './harness.js'
import { scenarios } from './scenarios.js'

/**
 * `npm run bench:ab -- <checkout> [users] [scenario…]` (by default by id, first page, the keyword page and POST /users): this checkout's server against another's (a commit
 * before a change: `git worktree add ../before <commit>`, then `npm run build` there), side by
 * side as the bench measures its targets: both loaded at once on one CPU, the median of nine
 * pairs from three pairs of fresh processes, per scenario; the ratio is this one's throughput
 * over the other's, and the same from server CPU per request. What a refactoring must show: no
 * ratio more than a few percent below 1.
 */
const [other, users = '10000', ...only] = process.argv.slice(2)
if (!other) {
  console.error('usage: npm run bench:ab -- <another checkout, built> [users] [scenario names…]')
  process.exit(2)
}
const seconds = Number(process.env.BENCH_DURATION ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
await buildServerOf(resolve(other), 'ab-other')
await buildServerOf(resolve('.'), 'ab-this')
const chosen = scenarios.filter((scenario) =>
  (only.length > 0
    ? only
    : ['by id', 'first page', 'filtered + sorted + keyword', 'POST /users']
  ).includes(scenario.name),
)
console.log(
  `${resolve('.')} against ${resolve(other)}: ${users} users, ${PAIRS} side-by-side pairs per scenario, load: ${generator.describe}`,
)
const pairs = await sideBySide(
  [() => startServer('ab-other', [users, 'fast']), () => startServer('ab-this', [users, 'fast'])],
  chosen,
  seconds,
  connections,
)
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const scenario of chosen) {
  const measured = pairs.get(scenario.name)!
  const [before, after] = medianPair(measured)
  const throughput = measured.map(([a, b]) => b.rps / a.rps)
  const cpu = median(measured.map(([a, b]) => a.cpuPerRequest! / b.cpuPerRequest!))
  console.log(
    `${scenario.name.padEnd(28)} ${String(after.rps).padStart(6)} | ${String(before.rps).padStart(6)} req/s  ratio ${(after.rps / before.rps).toFixed(3)} (pairs ${Math.min(...throughput).toFixed(2)}-${Math.max(...throughput).toFixed(2)}), CPU per request ${cpu.toFixed(3)}`,
  )
}
