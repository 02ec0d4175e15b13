/**
 * The ESM half of the package: the entry points of `dist/` (the package's three exports and the
 * CLI) bundled with code splitting, so what Node's entry points share is one chunk under
 * `dist/chunks/` (the browser's is built on its own, below) and what only some paths need (the
 * server, the msw transport) stays behind a dynamic import.
 * zod is bundled in, tree-shaken: loading it as a package costs a fresh test file more than
 * everything else the sandbox does before its first answer (its entry loads every one of its
 * ~45 locales, each a module Node reads, links and compiles; measured in the README's design
 * notes). So is fastest-levenshtein (~100 lines; as a CommonJS package Node resolves, reads and
 * lexes it on every start, a few ms of a fresh test file's). So is the part of the MCP SDK that
 * `shop-sandbox mcp` uses (a devDependency: its own dependencies, an HTTP stack of ~90 packages,
 * are not ours to install; docs/decisions/2026-11-mcp.md), in the chunk only that command
 * loads. The other dependencies and msw stay
 * external: msw must be the app's own, faker is
 * loaded only to generate data (resources/seed-sources.ts), the rest only on the CLI's and the
 * server's paths.
 *
 * Runs after `tsc` (whose `.d.ts` files stay where they are) and after `build-cjs.ts` (which
 * reads tsc's per-module output) in `npm run build`; it removes that per-module ESM output.
 * Then it writes the data sets prepared for the default seed and counts (resources/seed.ts
 * `prepareDefaultSeed`: a sandbox with the defaults reads them instead of loading faker).
 */
import type { BuildOptions, Plugin } from 'esbuild'
import { build } from 'esbuild'
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { PreparedSeed } from '../resources/seed.js'
import { preparedSeedFiles, resolveSeedOptions, seedCatalog } from '../resources/seed.js'
import { shopPreparedSeedFile } from '../shop/index.js'
import { minified } from './minified.js'
import { recordBundled } from './third-party.js'

const dist = 'dist'
/** The modules bundled into the package instead of loaded from node_modules. */
const bundled = new Set(['zod', 'fastest-levenshtein'])
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}
const external = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`])

// The default data sets (resources/seed.ts `prepareDefaultSeed`), generated once. The shop's
// also becomes the module the browser entry imports on demand (shop/prepared-seed.ts): a page
// with the defaults then loads it instead of faker.
const preparedTexts = [...preparedSeedFiles()].map(([catalog, file]) => {
  const counts = resolveSeedOptions(catalog)
  const prepared: PreparedSeed = { counts, snapshot: seedCatalog(catalog, counts) }
  return [file, JSON.stringify(prepared)] as const
})
const shopText = preparedTexts.find(([file]) => file === shopPreparedSeedFile)?.[1]
if (!shopText) throw new Error(`no prepared data set named ${shopPreparedSeedFile}`)
writeFileSync(join(dist, 'shop', 'prepared-seed.js'), `export default ${shopText}\n`)

const options = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  outdir: join(dist, '.esm'),
  outbase: dist,
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'inline',
  ...minified,
  logLevel: 'warning',
  write: true,
  metafile: true,
} satisfies BuildOptions
/**
 * Node's entry points load msw's HTTP handlers alone (sandbox/msw-node.ts, in place of
 * sandbox/msw.ts: msw's main entry costs a fresh msw 2 test file ~90 ms). The browser's keeps
 * msw's main entry (a bundler takes what it uses; no top-level await in a page's bundle), so it
 * is built on its own: the two share no chunk.
 */
const nodeMsw: Plugin = {
  name: 'msw-for-node',
  setup(build) {
    build.onResolve({ filter: /^\.\/msw\.js$/ }, ({ resolveDir }) =>
      resolveDir.endsWith(join(dist, 'sandbox'))
        ? { path: join(resolveDir, 'msw-node.js') }
        : undefined,
    )
  },
}
const entries = (names: string[]) => names.map((entry) => join(dist, entry))
const result = await build({
  ...options,
  entryPoints: entries(['index.js', 'node/index.js', 'bin/shop-sandbox.js']),
  plugins: [nodeMsw],
})
const browser = await build({ ...options, entryPoints: entries(['browser/index.js']) })
if (result.errors.length > 0 || browser.errors.length > 0) process.exit(1)
recordBundled(result.metafile)
recordBundled(browser.metafile)
// A bundler of an app's server code must leave msw-node.ts's import of msw's handlers to Node (its
// entry depends on the installed msw): esbuild drops the comments that say so when it minifies.
const mswNode = join(dist, 'sandbox', 'msw-node.js')
const [mswChunk] = Object.entries(result.metafile.outputs).filter(
  ([, out]) => mswNode in out.inputs,
)
if (!mswChunk) throw new Error(`no output holds ${mswNode}`)
const mswText = readFileSync(mswChunk[0], 'utf8')
const runtimeImport = 'import(httpEntry)'
if (mswText.split(runtimeImport).length !== 2) throw new Error(`${mswChunk[0]}: ${runtimeImport}?`)
writeFileSync(
  mswChunk[0],
  mswText.replace(runtimeImport, 'import(/* webpackIgnore: true */ /* @vite-ignore */ httpEntry)'),
)

// Replace tsc's per-module ESM output with the bundles; keep its declarations.
function jsFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return ['cjs', '.esm'].includes(entry.name) ? [] : jsFiles(path)
    return entry.name.endsWith('.js') ? [path] : []
  })
}
for (const file of jsFiles(dist)) rmSync(file)
cpSync(join(dist, '.esm'), dist, { recursive: true })
rmSync(join(dist, '.esm'), { recursive: true })

// The default data sets, as JSON beside the module that reads them (resources/seed-sources.ts):
// in the ESM build, the chunk it landed in; in the CommonJS build, its own folder.
const reader = join(dist, 'resources', 'seed-sources.js')
const chunk = Object.entries(result.metafile.outputs).find(([, output]) => reader in output.inputs)
if (!chunk) throw new Error(`no output holds ${reader}`)
const folders = [
  dirname(join(dist, relative(join(dist, '.esm'), chunk[0]))),
  join(dist, 'cjs', 'resources'),
]
for (const [file, text] of preparedTexts)
  for (const folder of folders) writeFileSync(join(folder, file), text)
