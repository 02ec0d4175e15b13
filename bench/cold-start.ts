import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'

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
}

const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Cold start (issue 18): fresh processes, alternating pairs (sandbox, msw alone), the median of
 * each and of the ratios. Needs `npm run build` first.
 */
export function coldStart(pairs = 9): { sandboxMs: number; mswMs: number; ratio: number } {
  const folder = mkdtempSync(join(repo, '.cold-'))
  try {
    for (const [name, code] of Object.entries(programs))
      writeFileSync(join(folder, `${name}.mjs`), code)
    const run = (name: string) =>
      Number(
        execFileSync(process.execPath, [join(folder, `${name}.mjs`)], {
          cwd: repo,
          encoding: 'utf8',
        }),
      )
    const sandbox: number[] = []
    const msw: number[] = []
    const ratios: number[] = []
    for (let i = 0; i < pairs; i++) {
      // Odd pairs run msw first, so neither side always gets the warmer disk cache.
      let s: number
      let m: number
      if (i % 2 === 0) {
        s = run('sandbox')
        m = run('msw')
      } else {
        m = run('msw')
        s = run('sandbox')
      }
      sandbox.push(s)
      msw.push(m)
      ratios.push(s / m)
    }
    return { sandboxMs: median(sandbox), mswMs: median(msw), ratio: median(ratios) }
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
