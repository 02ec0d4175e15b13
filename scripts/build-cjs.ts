/**
 * The CommonJS half of the package, for `require('shop-sandbox')` and Jest's CommonJS runtime:
 * every module of `dist/` (but the ESM-only CLI and its MCP server) turned into CommonJS under `dist/cjs/`, beside
 * a copy of its `.d.ts` (so a CommonJS TypeScript consumer resolves msw's types the same way its
 * own code does). faker 10 ships only ESM, which Jest's CommonJS runtime cannot load, so the
 * seeder's part of it is bundled in as `dist/cjs/vendor/faker.js`. The default data set is
 * written beside the seeder's loader by scripts/build-esm.ts, as for the ESM build.
 *
 * Runs after `tsc` in `npm run build`.
 */
import { build } from 'esbuild'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { minified } from './minified.js'
import { recordBundled } from './third-party.js'

const dist = 'dist'
/** faker's module the seeder uses (ESM only): bundled for this build, required in its place. */
const fakerModule = '@faker-js/faker/locale/base'
const out = join(dist, 'cjs')
/**
 * Folders of dist/ that stay ESM only: the CLI (yargs is ESM-only), its MCP server and the
 * CommonJS copy itself.
 */
const esmOnly = new Set(['bin', 'mcp', 'cjs'])

function files(folder: string, skip: ReadonlySet<string> = esmOnly): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return folder === dist && skip.has(entry.name) ? [] : files(path, skip)
    return [path]
  })
}

// A declaration that names Node's types (`node:http`, `Buffer`, `NodeJS.*`) says so itself:
// TypeScript 6 includes no `@types` package unless told (`types` defaults to `[]`), so a strict
// check of `shop-sandbox/node` found no `node:http` (TS2591) in a project that had @types/node.
const namesNodeTypes = /from 'node:|import\("node:|\bNodeJS\.|\bBuffer\b/
const nodeReference = '/// <reference types="node" />\n'
for (const file of files(dist, new Set(['cjs'])).filter((name) => name.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8')
  if (namesNodeTypes.test(text)) writeFileSync(file, nodeReference + text)
}

const all = files(dist)
/** msw for Node's ESM entry points only (top-level await): CommonJS keeps sandbox/msw.js. */
const esmOnlyModules = new Set([join(dist, 'sandbox', 'msw-node.js')])
await build({
  entryPoints: all.filter((file) => file.endsWith('.js') && !esmOnlyModules.has(file)),
  outdir: out,
  outbase: dist,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  // import() becomes require(): Jest's CommonJS runtime has no dynamic import without flags.
  supported: { 'dynamic-import': false },
  // The ESM build beside it is the readable one; this copy only needs to run.
  ...minified,
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: `const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
})
/** A CommonJS bundle of an ESM-only module's exports, under dist/cjs/vendor/. */
const vendor = async (contents: string, file: string) => {
  const result = await build({
    stdin: { contents, resolveDir: '.' },
    bundle: true,
    outfile: join(out, 'vendor', file),
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'inline',
    logLevel: 'warning',
    metafile: true,
  })
  recordBundled(result.metafile)
}
await vendor(`export { faker } from '${fakerModule}'`, 'faker.js')
// faker's English locale alone (its definitions, no second Faker class), for seeders of your own.
await vendor(`export { en } from '@faker-js/faker'`, 'faker-en.js')
// faker is ESM only: a CommonJS declaration file imports its types as such (TypeScript refuses
// the bare import under node16 and nodenext: TS1541).
const fakerTypes = /from '@faker-js\/faker';/g
for (const file of all.filter((name) => name.endsWith('.d.ts'))) {
  const target = join(out, relative(dist, file))
  mkdirSync(dirname(target), { recursive: true })
  const text = readFileSync(file, 'utf8')
  writeFileSync(
    target,
    text.replace(fakerTypes, "from '@faker-js/faker' with { 'resolution-mode': 'import' };"),
  )
}
// faker 10 is ESM only: the CommonJS build requires its bundled copy instead, synchronously, from
// the seeder's loader (replaced whole: Jest then loads faker in the test's own module registry).
writeFileSync(
  join(out, 'resources', 'require-faker.js'),
  `"use strict";exports.requireFaker=()=>require("../vendor/faker.js");exports.requireFakerEnglish=()=>require("../vendor/faker-en.js").en;\n`,
)
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`)
