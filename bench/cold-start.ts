import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import { mswHttpEntry } from '../sandbox/msw-entry.js'

const repo = resolve(import.meta.dirname, '..')

/** What a fresh test file does before its first answer: with the sandbox, and with msw alone. */
const programs = {
  sandbox: `const t0 = performance.now()
const { setupServer } = await import('msw/node')
const { createSandbox } = await import(${JSON.stringify(join(repo, 'dist/index.js'))})
const sandbox = createSandbox({ baseUrl: 'https://api.test' })
const server = setupServer(...sandbox.handlers)
server.listen()
await (await fetch('https://api.test/users/1', { headers: { authorization: 'Bearer sandbox-admin-token' } })).json()
console.log(performance.now() - t0)
server.close()
`,
  msw: `const t0 = performance.now()
const { setupServer } = await import('msw/node')
const { http, HttpResponse } = await import('msw')
const server = setupServer(http.get('https://api.test/users/1', () => HttpResponse.json({ code: 0, message: 'success', data: { id: 1 } })))
server.listen()
await (await fetch('https://api.test/users/1')).json()
console.log(performance.now() - t0)
server.close()
`,
  // msw loading only its HTTP handlers, as the sandbox's Node entry does (sandbox/msw-node.ts):
  // like for like, what the sandbox's own work costs.
  mswCore: `const t0 = performance.now()
const { setupServer } = await import('msw/node')
const { http } = await import(${JSON.stringify(
    mswHttpEntry(
      (createRequire(join(repo, 'package.json'))('msw/package.json') as { version: string })
        .version,
    ),
  )})
const server = setupServer(http.get('https://api.test/users/1', () => Response.json({ code: 0, message: 'success', data: { id: 1 } })))
server.listen()
await (await fetch('https://api.test/users/1')).json()
console.log(performance.now() - t0)
server.close()
`,
}

const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Cold start (issue 18): fresh processes, alternating pairs (sandbox, msw alone), the median of
 * each and of the ratios; and beside each pair msw alone with only its HTTP handlers (what the
 * sandbox's Node entry loads of msw), for the ratio of the sandbox's own work. Needs
 * `npm run build` first. 21 turns: with 9 the like-for-like ratio moved by ±3% between runs on
 * unchanged code, with 21 by ±1.4% (2026-11-27, docs/performance.md).
 */
export function coldStart(pairs = 21): {
  pairs: number
  sandboxMs: number
  mswMs: number
  ratio: number
  /** The lowest and highest of the turns' ratios. */
  spread: [number, number]
  mswCoreMs: number
  coreRatio: number
  coreSpread: [number, number]
} {
  const folder = mkdtempSync(join(repo, '.cold-'))
  try {
    for (const [name, code] of Object.entries(programs))
      writeFileSync(join(folder, `${name}.mjs`), code)
    const run = (name: keyof typeof programs) =>
      Number(
        execFileSync(process.execPath, [join(folder, `${name}.mjs`)], {
          cwd: repo,
          encoding: 'utf8',
        }),
      )
    const times = { sandbox: [] as number[], msw: [] as number[], mswCore: [] as number[] }
    const ratios: number[] = []
    const coreRatios: number[] = []
    for (let i = 0; i < pairs; i++) {
      // Each turn starts with the next program, so none always gets the warmer disk cache.
      const order = (['sandbox', 'msw', 'mswCore'] as const).map(
        (_, k, names) => names[(i + k) % names.length]!,
      )
      const turn = Object.fromEntries(order.map((name) => [name, run(name)])) as Record<
        keyof typeof programs,
        number
      >
      for (const name of order) times[name].push(turn[name])
      ratios.push(turn.sandbox / turn.msw)
      coreRatios.push(turn.sandbox / turn.mswCore)
    }
    const spread = (values: number[]): [number, number] => [
      Math.min(...values),
      Math.max(...values),
    ]
    return {
      pairs,
      sandboxMs: median(times.sandbox),
      mswMs: median(times.msw),
      ratio: median(ratios),
      spread: spread(ratios),
      mswCoreMs: median(times.mswCore),
      coreRatio: median(coreRatios),
      coreSpread: spread(coreRatios),
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** Minified bytes `shop-sandbox/browser` adds to a bundle, msw external (issue 18: ≤ 400 kB). */
export async function browserWeight(): Promise<number> {
  return startupBytes(
    `import { startSandbox } from ${JSON.stringify(join(repo, 'dist/browser/index.js'))}\nstartSandbox()`,
    repo,
    ['msw', 'msw/*'],
  )
}

/**
 * The minified bytes a page loads for `entry` (module text resolved from `resolveDir`), split
 * as an app's bundler splits it (Vite, webpack): what loads on demand is a chunk of its own,
 * fetched only when used (the console; faker and its English locale, for data that is
 * generated). Counted: the entry, what it imports statically, and the shop's prepared data set
 * `startSandbox()` imports at start with the defaults. `scripts/measure.ts` uses it too.
 */
export async function startupBytes(
  entry: string,
  resolveDir: string,
  external: string[],
): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'shop-sandbox-weight-'))
  try {
    const result = await build({
      stdin: { contents: entry, resolveDir },
      bundle: true,
      minify: true,
      write: false,
      splitting: true,
      outdir: folder,
      metafile: true,
      format: 'esm',
      platform: 'browser',
      external,
      logLevel: 'silent',
    })
    const outputs = result.metafile!.outputs
    const first = Object.keys(outputs).find((file) => outputs[file]!.entryPoint !== undefined)!
    const loaded = new Set<string>()
    const visit = (file: string) => {
      if (loaded.has(file) || !outputs[file]) return
      loaded.add(file)
      for (const imported of outputs[file]!.imports)
        if (imported.kind === 'import-statement' || imported.path.includes('prepared-seed'))
          visit(imported.path)
    }
    visit(first)
    return [...loaded].reduce((sum, file) => sum + outputs[file]!.bytes, 0)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
