import type { ChildProcess } from 'node:child_process'
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
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
 * Compiles the server scripts to plain JavaScript, so the measured processes run without a
 * TypeScript loader (tsx's loader thread would add its own memory and start-up time).
 */
export async function buildServers(): Promise<void> {
  await build({
    entryPoints: ['baseline', 'sandbox'].map((name) =>
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

/** Starts a compiled server (GC exposed) in a child process and reads the JSON line it prints. */
export async function startServer(
  name: 'baseline' | 'sandbox',
  args: string[],
): Promise<{ child: ChildProcess; info: Record<string, number> & { url: string } }> {
  const script = fileURLToPath(new URL(`${name}.mjs`, built))
  const child = fork(script, args, {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
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

/** Drives one scenario with autocannon on loopback for a bounded time. */
let bodies = 0

export async function load(
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
    headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
    ...(scenario.body
      ? {
          requests: [
            {
              method: 'POST',
              path: new URL(`${url}${scenario.path}`).pathname,
              setupRequest: (request) => ({ ...request, body: scenario.body!(bodies++) }),
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
