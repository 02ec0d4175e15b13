import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core'
import { chromiumPath, launchChromium } from '../test/support/chromium.js'
import type { PageMode, RequestKind } from './browser-page.js'
import { indexHtml, mainJs, requests } from './browser-page.js'

/**
 * The browser bench (issue 47): browser mode as frontend developers use it every minute, in
 * Debian's Chromium. One page (bench/browser-page.ts), built by Vite once per mode as an app is
 * built and served by `vite preview`, runs either `startSandbox()` from the built package or
 * msw's own `setupWorker` with one static handler per route answering the bytes the sandbox
 * answered (the like-for-like ceiling: msw's worker round trip and nothing else). The two
 * alternate, round after round, each in a browser context of its own (its own service worker
 * registration), so whatever the machine does it does to both; each figure is the median of
 * the rounds' ratios, printed with their spread.
 */

const repo = resolve(import.meta.dirname, '..')

/** Whether the browser bench can run here (Debian's Chromium, or CHROMIUM_PATH). */
export const chromiumFound = () => existsSync(chromiumPath)
const kinds = Object.keys(requests) as RequestKind[]

export interface BrowserSettings {
  /** Alternating rounds (each measures both pages). */
  rounds: number
  /** Fetches per measurement, one at a time; ten at a time takes twice as many. */
  count: number
  /**
   * Pairs of fresh contexts for page start. One start varies by 0.5-2× (the renderer, the service
   * worker's registration and Vite's server share two cores): with 9 pairs the median ratio moved
   * by ±10% between runs on unchanged code, with 21 by ±5% (2026-11-27, docs/performance.md).
   */
  starts: number
  /** Requests before the second heap reading. */
  heapRequests: number
  /** The info rows (persist, console open, 10,000 users). */
  info: boolean
}

export const fullSettings: BrowserSettings = {
  rounds: 7,
  count: 400,
  starts: 21,
  heapRequests: 10_000,
  info: true,
}
export const shortSettings: BrowserSettings = {
  rounds: 3,
  count: 200,
  starts: 3,
  heapRequests: 2_000,
  info: false,
}

/** One figure of one page, and of msw alone, over the rounds. */
export interface Compared {
  /** The sandbox's median (ms, or requests per second). */
  sandbox: number
  msw: number
  /** Median of the rounds' ratios, and their lowest and highest. */
  ratio: number
  spread: [number, number]
}

export interface RequestRow {
  kind: RequestKind
  concurrency: number
  rps: Compared
  medianMs: Compared
  p99Ms: Compared
}

export interface InfoRow {
  what: string
  startMs: number
  byIdRps: number
  /** Against the default page's, in the same run. */
  byIdRatio: number
  postRps: number
  postRatio: number
}

export interface BrowserResults {
  chromium: string
  /** Alternating rounds per request row, and pairs of page starts. */
  rounds: number
  startPairs: number
  /** Requests between the two heap readings. */
  heapRequests: number
  requests: RequestRow[]
  start: Compared
  heap: { sandbox: [number, number]; msw: [number, number] }
  info: InfoRow[]
  /**
   * For a target not met: the sandbox page's busiest functions while it ran (self time), and
   * the self time by script beside msw alone's doing the same work.
   */
  profiles: Profiled[]
}

export interface Profiled {
  what: string
  top: Array<{ fn: string; percent: number }>
  /** Self milliseconds by script (a chunk's name without its hash; `(idle)`, `(program)`, GC). */
  scripts: Array<{ script: string; sandboxMs: number; mswMs: number }>
}

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}

/** A free TCP port on loopback. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

/**
 * Builds the page with Vite (the built package, as an app gets it), once per mode, and serves
 * each. Two builds, not one with both modes: in one, msw's own code would be a chunk both pages
 * share, and the sandbox's page would load what only msw alone's `import('msw')` needs (msw's
 * GraphQL support and the `graphql` package), which an app with the sandbox alone does not.
 */
async function servePages(): Promise<{
  url: Record<PageMode, string>
  close(): Promise<void>
  folder: string
}> {
  const { build, preview } = await import('vite')
  // Inside the repository, so the page's imports resolve from its node_modules (msw).
  const folder = mkdtempSync(join(repo, '.cold-browser-'))
  const servers: Array<{ close(): Promise<void> }> = []
  const url = {} as Record<PageMode, string>
  try {
    for (const mode of ['sandbox', 'msw'] as const) {
      const root = join(folder, mode)
      mkdirSync(join(root, 'public'), { recursive: true })
      writeFileSync(join(root, 'index.html'), indexHtml)
      writeFileSync(join(root, 'main.js'), mainJs(mode))
      copyFileSync(
        join(repo, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js'),
        join(root, 'public', 'mockServiceWorker.js'),
      )
      const config = {
        root,
        configFile: false as const,
        logLevel: 'error' as const,
        resolve: { alias: { 'shop-sandbox/browser': join(repo, 'dist', 'browser', 'index.js') } },
        build: { outDir: join(root, 'dist'), target: 'es2022' },
      }
      await build(config)
      const port = await freePort()
      servers.push(
        await preview({ ...config, preview: { host: '127.0.0.1', port, strictPort: true } }),
      )
      url[mode] = `http://127.0.0.1:${port}`
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()))
    throw error
  }
  return {
    url,
    folder,
    close: async () => {
      await Promise.all(servers.map((server) => server.close()))
    },
  }
}

/** A page in a context of its own, started, with a CDP session for its heap and profile. */
interface Opened {
  context: BrowserContext
  page: Page
  cdp: CDPSession
  startMs: number
}

async function open(
  browser: Browser,
  url: string,
  query: string,
  recorded?: unknown,
): Promise<Opened> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  if (recorded)
    await page.addInitScript((value) => Object.assign(window, { recorded: value }), recorded)
  await page.goto(`${url}/?${query}`)
  try {
    await page.waitForFunction(() => 'startMs' in window, null, { timeout: 120_000 })
  } catch (error) {
    throw new Error(
      `the bench page ${url}/?${query} did not start: ${problems.join('; ') || error}`,
      {
        cause: error,
      },
    )
  }
  const { startMs, status } = await page.evaluate(() => ({
    startMs: (window as unknown as { startMs: number }).startMs,
    status: (window as unknown as { firstStatus: number }).firstStatus,
  }))
  if (status !== 200) throw new Error(`the bench page ${url}/?${query} answered ${status}`)
  return { context, page, cdp: await context.newCDPSession(page), startMs }
}

/** `count` fetches of a kind, `concurrency` at a time: req/s, median and p99 ms. */
async function measure(opened: Opened, kind: RequestKind, count: number, concurrency: number) {
  const { times, elapsed } = await opened.page.evaluate(
    ([kind, count, concurrency]) =>
      (
        window as unknown as {
          bench(k: string, n: number, c: number): Promise<{ times: number[]; elapsed: number }>
        }
      ).bench(kind, count, concurrency),
    [kind, count, concurrency] as const,
  )
  return {
    rps: (times.length / elapsed) * 1000,
    median: median(times),
    p99: percentile(times, 0.99),
  }
}

/** The page's JS heap after a full collection, in MB (CDP). */
async function heapMb(opened: Opened): Promise<number> {
  await opened.cdp.send('HeapProfiler.collectGarbage')
  const { usedSize } = await opened.cdp.send('Runtime.getHeapUsage')
  return usedSize / 1e6
}

/**
 * Where the time goes while `work` runs: the page's busiest functions (self time) and its self
 * milliseconds by script.
 */
async function profile(opened: Opened, work: () => Promise<unknown>) {
  await opened.cdp.send('Profiler.enable')
  await opened.cdp.send('Profiler.setSamplingInterval', { interval: 100 })
  await opened.cdp.send('Profiler.start')
  await work()
  const { profile } = await opened.cdp.send('Profiler.stop')
  const self = new Map<string, number>()
  const scripts = new Map<string, number>()
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const samples = profile.samples ?? []
  samples.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame
    const file = frame.url.split('/').at(-1)!.split('?')[0]!
    const where = frame.url ? ` ${file}:${frame.lineNumber + 1}` : ''
    const key = `${frame.functionName || '(anonymous)'}${where}`
    self.set(key, (self.get(key) ?? 0) + 1)
    // A chunk's name without its content hash; native frames by their own name.
    const script = frame.url
      ? file.replace(/-[\w-]{8}\.js$/, '.js')
      : frame.functionName || '(native)'
    scripts.set(script, (scripts.get(script) ?? 0) + (profile.timeDeltas?.[i + 1] ?? 0) / 1000)
  })
  return {
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, hits]) => ({ fn, percent: (hits / samples.length) * 100 })),
    scripts,
  }
}

/** Two profiles' self time by script side by side, the largest difference first. */
function sideBySide(sandbox: Map<string, number>, msw: Map<string, number>): Profiled['scripts'] {
  return [...new Set([...sandbox.keys(), ...msw.keys()])]
    .map((script) => ({
      script,
      sandboxMs: sandbox.get(script) ?? 0,
      mswMs: msw.get(script) ?? 0,
    }))
    .sort((a, b) => Math.abs(b.sandboxMs - b.mswMs) - Math.abs(a.sandboxMs - a.mswMs))
    .slice(0, 10)
}

const compared = (sandbox: number[], msw: number[], higherIsBetter: boolean): Compared => {
  const ratios = sandbox.map((value, i) => (higherIsBetter ? value / msw[i]! : value / msw[i]!))
  return {
    sandbox: median(sandbox),
    msw: median(msw),
    ratio: median(ratios),
    spread: [Math.min(...ratios), Math.max(...ratios)],
  }
}

/** Runs the browser bench; `log` gets a line per step. */
export async function browserBench(
  settings: BrowserSettings,
  log: (line: string) => void = console.log,
): Promise<BrowserResults> {
  const served = await servePages()
  const browser = await launchChromium([
    // Pages in the background must not be throttled while the other is measured.
    '--disable-background-timer-throttling',
    '--disable-renderer-backgrounding',
  ])
  try {
    const sandbox = await open(browser, served.url.sandbox, '')
    // The bytes the sandbox answers, for msw alone to answer the same.
    const recorded = await sandbox.page.evaluate(async (requests) => {
      const headers = { authorization: 'Bearer sandbox-admin-token' }
      const out: Record<string, unknown> = {}
      for (const [kind, { method, path }] of Object.entries(requests)) {
        const response = await fetch(path, {
          method,
          headers: method === 'GET' ? headers : { ...headers, 'content-type': 'application/json' },
          ...(method === 'GET'
            ? {}
            : { body: JSON.stringify({ name: 'Rec Order', email: 'recorded@example.com' }) }),
        })
        out[kind] = {
          status: response.status,
          headers: Object.fromEntries(response.headers),
          body: await response.text(),
        }
      }
      return out
    }, requests)
    const msw = await open(browser, served.url.msw, '', recorded)
    const heapAfterStart = { sandbox: await heapMb(sandbox), msw: await heapMb(msw) }

    // Per request: both pages, round after round, the order swapped each round.
    const rows: RequestRow[] = []
    const samples = new Map<string, { sandbox: number[][]; msw: number[][] }>()
    for (const kind of kinds)
      for (const concurrency of [1, 10]) {
        const key = `${kind}|${concurrency}`
        samples.set(key, { sandbox: [], msw: [] })
        // Warm-up: the engine compiles the hot paths of both before anything counts.
        await measure(sandbox, kind, 100, concurrency)
        await measure(msw, kind, 100, concurrency)
      }
    for (let round = 0; round < settings.rounds; round++) {
      for (const kind of kinds)
        for (const concurrency of [1, 10]) {
          const count = settings.count * (concurrency === 1 ? 1 : 2)
          const order =
            round % 2 === 0 ? (['sandbox', 'msw'] as const) : (['msw', 'sandbox'] as const)
          const got: Record<string, { rps: number; median: number; p99: number }> = {}
          for (const name of order)
            got[name] = await measure(name === 'sandbox' ? sandbox : msw, kind, count, concurrency)
          const slot = samples.get(`${kind}|${concurrency}`)!
          slot.sandbox.push([got.sandbox!.rps, got.sandbox!.median, got.sandbox!.p99])
          slot.msw.push([got.msw!.rps, got.msw!.median, got.msw!.p99])
        }
      log(`  browser round ${round + 1} of ${settings.rounds}`)
    }
    for (const kind of kinds)
      for (const concurrency of [1, 10]) {
        const slot = samples.get(`${kind}|${concurrency}`)!
        const column = (rows: number[][], i: number) => rows.map((row) => row[i]!)
        rows.push({
          kind,
          concurrency,
          rps: compared(column(slot.sandbox, 0), column(slot.msw, 0), true),
          medianMs: compared(column(slot.sandbox, 1), column(slot.msw, 1), false),
          p99Ms: compared(column(slot.sandbox, 2), column(slot.msw, 2), false),
        })
      }

    // The heap after many requests (the mix of the four kinds).
    for (const opened of [sandbox, msw])
      for (const kind of kinds)
        await measure(opened, kind, settings.heapRequests / kinds.length, 10)
    const heap = {
      sandbox: [heapAfterStart.sandbox, await heapMb(sandbox)] as [number, number],
      msw: [heapAfterStart.msw, await heapMb(msw)] as [number, number],
    }

    // Where the time goes, for a per-request target not met (≥ 0.9× msw alone).
    const profiles: BrowserResults['profiles'] = []
    for (const row of rows.filter((one) => one.rps.ratio < 0.9)) {
      const run = (opened: Opened) =>
        profile(opened, () => measure(opened, row.kind, settings.count * 2, row.concurrency))
      const ours = await run(sandbox)
      const theirs = await run(msw)
      profiles.push({
        what: `${row.kind}, ${row.concurrency} at a time, ${settings.count * 2} requests`,
        top: ours.top,
        scripts: sideBySide(ours.scripts, theirs.scripts),
      })
    }
    await sandbox.context.close()
    await msw.context.close()

    // Page start: fresh contexts (a first visit: the worker registers), alternating.
    const starts = { sandbox: [] as number[], msw: [] as number[] }
    for (let pair = 0; pair < settings.starts; pair++) {
      const order = pair % 2 === 0 ? (['sandbox', 'msw'] as const) : (['msw', 'sandbox'] as const)
      for (const name of order) {
        const opened = await open(
          browser,
          served.url[name],
          '',
          name === 'msw' ? recorded : undefined,
        )
        starts[name].push(opened.startMs)
        await opened.context.close()
      }
    }
    const start = compared(starts.sandbox, starts.msw, false)
    log(
      `  browser page start: ${Math.round(start.sandbox)} ms | msw alone ${Math.round(start.msw)} ms`,
    )
    if (start.ratio > 1.2) {
      // A start profiled from its first line: a fresh context whose page is profiled as it loads.
      const started = async (mode: 'sandbox' | 'msw') => {
        const context = await browser.newContext()
        const page = await context.newPage()
        if (mode === 'msw')
          await page.addInitScript((value) => Object.assign(window, { recorded: value }), recorded)
        const cdp = await context.newCDPSession(page)
        const profiled = await profile({ context, page, cdp, startMs: 0 }, async () => {
          await page.goto(`${served.url[mode]}/`)
          await page.waitForFunction(() => 'startMs' in window)
        })
        await context.close()
        return profiled
      }
      const ours = await started('sandbox')
      const theirs = await started('msw')
      profiles.push({
        what: 'page start',
        top: ours.top,
        scripts: sideBySide(ours.scripts, theirs.scripts),
      })
    }

    // Info rows: the default page against itself with persist, the console open, 10,000 users.
    const info: InfoRow[] = []
    if (settings.info) {
      const base = await open(browser, served.url.sandbox, '')
      const baseById = await measure(base, 'GET /products/1', settings.count, 1)
      const basePost = await measure(base, 'POST /users', settings.count, 1)
      await base.context.close()
      for (const [what, query] of [
        ['persist (IndexedDB)', 'persist'],
        ['console panel open', 'console'],
        ['10,000 users (generated: faker)', 'users=10000'],
      ] as const) {
        const opened = await open(browser, served.url.sandbox, query)
        await measure(opened, 'GET /products/1', 100, 1)
        const byId = await measure(opened, 'GET /products/1', settings.count, 1)
        const post = await measure(opened, 'POST /users', settings.count, 1)
        info.push({
          what,
          startMs: opened.startMs,
          byIdRps: byId.rps,
          byIdRatio: byId.rps / baseById.rps,
          postRps: post.rps,
          postRatio: post.rps / basePost.rps,
        })
        await opened.context.close()
      }
    }
    return {
      chromium: browser.version(),
      rounds: settings.rounds,
      startPairs: settings.starts,
      heapRequests: settings.heapRequests,
      requests: rows,
      start,
      heap,
      info,
      profiles,
    }
  } finally {
    await browser.close()
    await served.close()
    rmSync(served.folder, { recursive: true, force: true })
  }
}

const fixed = (value: number, digits = 2) => value.toFixed(digits)
const ratioText = (c: Compared) =>
  `${fixed(c.ratio)}× (${fixed(c.spread[0])}–${fixed(c.spread[1])})`

/** The results as rows of the bench's tables: per request, then start and heap, then info. */
export function browserTables(results: BrowserResults) {
  return {
    requestHeader: [
      'request',
      'at a time',
      'req/s sandbox | msw alone',
      'ratio (spread)',
      'median ms',
      'p99 ms',
    ],
    requestRows: results.requests.map((row) => [
      row.kind,
      row.concurrency,
      `${Math.round(row.rps.sandbox)} | ${Math.round(row.rps.msw)}`,
      ratioText(row.rps),
      `${fixed(row.medianMs.sandbox)} | ${fixed(row.medianMs.msw)}`,
      `${fixed(row.p99Ms.sandbox)} | ${fixed(row.p99Ms.msw)}`,
    ]),
    startLine: `page start (navigation to the first answered fetch, fresh context): medians ${Math.round(results.start.sandbox)} ms, msw alone ${Math.round(results.start.msw)} ms; the median of the ${results.startPairs} pairs' ratios ${ratioText(results.start)}`,
    heapLine: `JS heap after start and after ${results.heapRequests.toLocaleString('en-US')} more requests (the four kinds, 10 at a time; after a full collection): sandbox ${fixed(results.heap.sandbox[0], 1)} → ${fixed(results.heap.sandbox[1], 1)} MB, msw alone ${fixed(results.heap.msw[0], 1)} → ${fixed(results.heap.msw[1], 1)} MB`,
    infoHeader: [
      'page',
      'start ms',
      'GET /products/1 req/s (× default)',
      'POST /users req/s (× default)',
    ],
    infoRows: results.info.map((row) => [
      row.what,
      Math.round(row.startMs),
      `${Math.round(row.byIdRps)} (${fixed(row.byIdRatio)}×)`,
      `${Math.round(row.postRps)} (${fixed(row.postRatio)}×)`,
    ]),
  }
}

/** A profile's lines: the busiest functions, then self time by script beside msw alone's. */
export function profileLines(profile: Profiled): string[] {
  const ms = (value: number) => value.toFixed(1)
  return [
    `where the time goes (${profile.what}): self time by script, sandbox | msw alone (ms)`,
    ...profile.scripts.map(
      (one) => `  ${one.script.padEnd(32)} ${ms(one.sandboxMs).padStart(8)} | ${ms(one.mswMs)}`,
    ),
    '  busiest functions in the sandbox page (self time):',
    ...profile.top.map((fn) => `  ${fn.percent.toFixed(1)}% ${fn.fn}`),
  ]
}
