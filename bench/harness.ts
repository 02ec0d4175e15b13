import type { ChildProcess } from 'node:child_process'
import { execFile, execFileSync, fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import type { Plugin } from 'esbuild'
import { build } from 'esbuild'
import type { Scenario } from './scenarios.js'

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  /** Errors and responses outside 2xx. */
  errors: number
  /** Server CPU time (user + system, µs) per answered request, when measured. */
  cpuPerRequest?: number
}

const built = new URL('./.build/', import.meta.url)

/**
 * The package's Node entry as `npm run build` writes it: the sandbox server is measured as users
 * run it (`dist/`), not as the bench would bundle the sources (that bundle settled ~40 MB
 * higher at 100,000 users in most starts; the cause is not pinned down).
 */
const packageEntry: Plugin = {
  name: 'package-entry',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/\.\.\/node\/index\.js$/ }, () => ({
      path: fileURLToPath(new URL('../dist/node/index.js', import.meta.url)),
      external: true,
    }))
  },
}

/**
 * Compiles the server scripts to plain JavaScript, so the measured processes run without a
 * TypeScript loader (tsx's loader thread would add its own memory and start-up time). Needs
 * `npm run build` first (`npm run bench` runs it).
 */
export async function buildServers(): Promise<void> {
  await build({
    plugins: [packageEntry],
    entryPoints: ['baseline', 'sandbox', 'msw-alone'].map((name) =>
      fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url)),
    ),
    outdir: fileURLToPath(built),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  })
}

/**
 * Compiles another checkout's sandbox server (its `bench/servers/sandbox.ts` against its own
 * `dist/`, which `npm run build` there made) beside this one's, for `npm run bench:ab`.
 * Returns the compiled script.
 */
export async function buildServerOf(checkout: string, name: string): Promise<string> {
  const outfile = fileURLToPath(new URL(`${name}.mjs`, built))
  await build({
    plugins: [
      {
        name: 'checkout-entry',
        setup(build) {
          build.onResolve({ filter: /^\.\.\/\.\.\/node\/index\.js$/ }, () => ({
            path: join(checkout, 'dist/node/index.js'),
            external: true,
          }))
        },
      },
    ],
    entryPoints: [join(checkout, 'bench/servers/sandbox.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  return outfile
}

/** Starts a compiled server (GC exposed) in a child process and reads the JSON line it prints. */
export async function startServer(
  name: 'baseline' | 'sandbox' | 'msw-alone' | `ab-${string}`,
  args: string[],
): Promise<{ child: ChildProcess; info: Record<string, number> & { url: string } }> {
  const script = fileURLToPath(new URL(`${name}.mjs`, built))
  const child = fork(script, args, {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  if (generator.serverCpu !== undefined) pin(child.pid!, generator.serverCpu)
  const info = await new Promise<Record<string, number> & { url: string }>((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk) => {
      output += chunk
      const line = output.split('\n').find((text) => text.startsWith('{'))
      if (line) resolve(JSON.parse(line))
    })
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  return { child, info }
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/** The sandbox server's RSS once idle (bench/servers/sandbox.ts): MB, how long it took, whether V8 reduced memory. */
export function idleRssOf(
  child: ChildProcess,
): Promise<{ idleRssMb: number; idleSeconds: number; reduced: boolean }> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as never))
    child.send('idle-rss')
  })
}

/** CPU time (user + system, µs) a server child has used so far. */
export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve((message as { cpuMicros: number }).cpuMicros))
    child.send('cpu')
  })
}

/** Runs a load and also returns the server's CPU time per answered request (µs). */
export async function loadWithCpu(
  server: { child: ChildProcess; info: { url: string } },
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<LoadResult & { cpuPerRequest: number }> {
  const before = await cpuOf(server.child)
  const result = await load(server.info.url, scenario, seconds, connections)
  const after = await cpuOf(server.child)
  return { ...result, cpuPerRequest: (after - before) / Math.max(1, result.rps * seconds) }
}

/** A short unrecorded run, so every server is measured with its code already optimized. */
export async function warmUp(url: string, scenarios: readonly Scenario[]): Promise<void> {
  for (const scenario of scenarios) await load(url, scenario, 1, 10)
}

/** Runs `command` with `args` (or checks it exists): its output, or null when it is missing. */
function probe(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    const { stdout, code } = error as { stdout?: string; code?: string }
    return code === 'ENOENT' ? null : (stdout ?? '')
  }
}

/**
 * The load generator. wrk when it is installed (`apt-get install wrk`, `brew install wrk`): a C
 * client whose cost per response hardly depends on the answer, run on its own CPU with the
 * servers on another (`taskset`, Linux), so the ratios measure the servers. Otherwise autocannon
 * in this process, sharing the CPUs with the servers: its HTTP parser is JavaScript and pays for
 * every response header byte, which counts against the server that sends more headers.
 */
export const generator = (() => {
  const wrk = /wrk (\S+)/.exec(probe('wrk', ['--version']) ?? '')?.[1]
  const cpus = availableParallelism()
  const pinned = wrk !== undefined && cpus >= 2 && probe('taskset', ['-V']) !== null
  return {
    wrk: wrk !== undefined,
    /** The CPU the servers run on, and the load generator's, when pinned. */
    serverCpu: pinned ? cpus - 1 : undefined,
    clientCpu: pinned ? 0 : undefined,
    describe: wrk
      ? `wrk ${wrk}, 1 thread${pinned ? `, on CPU 0; servers on CPU ${cpus - 1}` : ''}`
      : 'autocannon in the bench process (install wrk for ratios that measure the servers alone)',
  }
})()

function pin(pid: number, cpu: number) {
  execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' })
}

/** Drives one scenario on loopback for a bounded time, with the load generator above. */
export async function load(
  url: string,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  return generator.wrk
    ? loadWithWrk(url, scenario, seconds, connections)
    : loadWithAutocannon(url, scenario, seconds, connections)
}

const headers = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
let bodies = 0

async function loadWithAutocannon(
  url: string,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url: `${url}${scenario.path}`,
    connections,
    duration: seconds,
    method: scenario.method,
    headers,
    ...(scenario.body
      ? {
          requests: [
            {
              method: 'POST',
              path: new URL(`${url}${scenario.path}`).pathname,
              setupRequest: (request) => ({ ...request, body: scenario.body!(String(bodies++)) }),
            },
          ],
        }
      : {}),
  })
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}

let scripts: string | undefined
let runs = 0

/** A folder for wrk's scripts, removed when the bench exits. */
function scriptFolder(): string {
  if (scripts) return scripts
  const made = mkdtempSync(join(tmpdir(), 'shop-sandbox-bench-'))
  process.once('exit', () => rmSync(made, { recursive: true, force: true }))
  return (scripts = made)
}

/**
 * wrk, with a Lua script for a scenario with bodies: the scenario's body with its number made
 * in Lua (`<run>-<n>`, so no two requests of the bench send the same one).
 */
async function loadWithWrk(
  url: string,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  if (scenario.sandboxes) {
    // Each request to one of `sandboxes` named sandboxes in turn (X-Sandbox-Id).
    const script = join(scriptFolder(), `run-${++runs}.lua`)
    writeFileSync(
      script,
      [
        'local n = 0',
        'request = function()',
        '  n = n + 1',
        `  wrk.headers["X-Sandbox-Id"] = "team-" .. (n % ${scenario.sandboxes})`,
        '  return wrk.format()',
        'end',
      ].join('\n'),
    )
    args.push('-s', script)
  } else if (scenario.body) {
    const mark = '{{n}}'
    const parts = scenario
      .body(mark)
      .split(mark)
      .map((part) => JSON.stringify(part))
    const script = join(scriptFolder(), `run-${++runs}.lua`)
    writeFileSync(
      script,
      [
        `wrk.method = "${scenario.method}"`,
        'local n = 0',
        'request = function()',
        '  n = n + 1',
        `  local id = "${process.pid}-${runs}-" .. n`,
        `  return wrk.format(nil, nil, nil, ${parts.join(' .. id .. ')})`,
        'end',
      ].join('\n'),
    )
    args.push('-s', script)
  }
  args.push(`${url}${scenario.path}`)
  const [command, ...rest] =
    generator.clientCpu === undefined
      ? ['wrk', ...args]
      : ['taskset', '-c', String(generator.clientCpu), 'wrk', ...args]
  const { stdout } = await promisify(execFile)(command!, rest)
  return parseWrk(stdout)
}

const units: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 }

/** Reads wrk's report: requests per second, latency percentiles (ms), errors and non-2xx. */
function parseWrk(report: string): LoadResult {
  const latency = (percent: number) => {
    const found = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(report)
    // In ms, to the microsecond wrk reports (574.00us is 0.574, not 0.5740000000000001).
    return found ? Math.round(Number(found[1]) * units[found[2]!]! * 1000) / 1000 : Number.NaN
  }
  const count = (pattern: RegExp) =>
    [...report.matchAll(pattern)].reduce((sum, found) => sum + Number(found[1]), 0)
  return {
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(report)?.[1] ?? Number.NaN)),
    p50: latency(50),
    p99: latency(99),
    errors:
      count(/Non-2xx or 3xx responses: (\d+)/g) + count(/(?:connect|read|write|timeout) (\d+)/g),
  }
}

/** Median of `runs` timings of `work`, in milliseconds. */
export async function medianMs(runs: number, work: () => unknown): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await work()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

/** Prints rows as an aligned text table. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((row) => row.map(String))]
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
  return [
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n')
}

/**
 * How a ratio between two servers is measured: side by side, both servers loaded at the same
 * time (with wrk, both on one CPU, each with its own wrk on another), so whatever the shared
 * machine does to one it does to the other in the same moment. Loads one after the other, even
 * adjacent and alternating, could not cancel it: the same server measured 20k and 45k req/s a
 * few seconds apart, while side by side the baseline against itself stays within 1.00 ± 0.05.
 * Each server then gets about half a CPU, so the ratio is throughput per CPU. Three pairs on
 * each of three pairs of fresh processes (a process keeps its own speed, a few percent off the
 * next one's, for its whole life): nine, an odd count, so the median is one pair's ratio.
 */
const PAIRS_PER_PROCESS = 3
export const PROCESS_PAIRS = 3
export const PAIRS = PAIRS_PER_PROCESS * PROCESS_PAIRS
export type Started = Awaited<ReturnType<typeof startServer>>
/** Ratios are judged only with wrk: autocannon shares one JavaScript thread between both loads. */
export const judged = generator.wrk

/** The loads of two servers side by side, per scenario, on fresh pairs of processes. */
export async function sideBySide(
  start: readonly [() => Promise<Started>, () => Promise<Started>],
  chosen: readonly Scenario[],
  seconds: number,
  connections: number,
): Promise<Map<string, Array<[LoadResult, LoadResult]>>> {
  const pairs = new Map(
    chosen.map((scenario) => [scenario.name, [] as Array<[LoadResult, LoadResult]>]),
  )
  for (let processPair = 0; processPair < PROCESS_PAIRS; processPair++) {
    const started = [await start[0](), await start[1]()] as const
    for (const server of started) await warmUp(server.info.url, chosen)
    for (const scenario of chosen) {
      for (let pair = 0; pair < PAIRS_PER_PROCESS; pair++) {
        const pairSeconds = Math.max(2, Math.round(seconds * 0.6))
        const run = (server: Started) => loadWithCpu(server, scenario, pairSeconds, connections)
        pairs.get(scenario.name)!.push(await Promise.all([run(started[0]), run(started[1])]))
      }
    }
    await Promise.all(started.map((server) => stop(server.child)))
  }
  return pairs
}

/** The pair whose ratio (second / first) is the median. */
export function medianPair(pairs: Array<[LoadResult, LoadResult]>): [LoadResult, LoadResult] {
  const sorted = [...pairs].sort((a, b) => a[1].rps / a[0].rps - b[1].rps / b[0].rps)
  return sorted[Math.floor(sorted.length / 2)]!
}
