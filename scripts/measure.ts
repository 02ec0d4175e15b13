/**
 * Measures what docs/reference/javascript.md states about the package and rewrites its block between
 * `<!-- measured:start -->` and `<!-- measured:end -->`: the tarball (size, files), the install
 * footprint of `shop-sandbox` + `msw` in a fresh project (packages, MB), and the minified size
 * the sandbox adds to a browser bundle. Then, printed only, the browser bench in short
 * (bench/browser.ts: a few rounds in Chromium, when it is installed): `npm run bench` is the
 * full one.
 *
 *   npm run measure      (after npm run build)
 */
import { docPages, rewriteDocBlock } from '../bench/doc-block.js'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startupBytes } from '../bench/cold-start.js'
import { browserBench, browserTables, chromiumFound, shortSettings } from '../bench/browser.js'
import { table } from '../bench/harness.js'

const repo = resolve(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'shop-sandbox-measure-'))
const sh = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
const kB = (bytes: number) => `${Math.round(bytes / 1000)} kB`

try {
  const [pack] = JSON.parse(
    sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], repo),
  ) as { filename: string; size: number; unpackedSize: number; entryCount: number }[]
  const app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  )
  const msw = JSON.parse(readFileSync(join(repo, 'node_modules/msw/package.json'), 'utf8')).version
  sh(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(work, pack!.filename),
      `msw@${msw}`,
    ],
    app,
  )
  const packages = sh('npm', ['ls', '--all', '--parseable'], app).trim().split('\n').length - 1
  const megabytes = Number(sh('du', ['-sk', 'node_modules'], app).split('\t')[0]) / 1024
  writeFileSync(
    join(app, 'entry.js'),
    `import { startSandbox } from 'shop-sandbox/browser'\nstartSandbox()\n`,
  )
  const entry = readFileSync(join(app, 'entry.js'), 'utf8')
  const bundle = (external: string[]) => startupBytes(entry, app, external)
  const [alone, withMsw] = [await bundle(['msw', 'msw/*']), await bundle([])]
  const date = new Date().toISOString().slice(0, 10)
  const block = [
    '<!-- measured:start (npm run measure rewrites this block) -->',
    `Measured ${date} by \`npm run measure\`, with msw ${msw}:`,
    '',
    '| what | size |',
    '| --- | --- |',
    `| \`npm pack\` tarball | ${kB(pack!.size)} (${kB(pack!.unpackedSize)} unpacked, ${pack!.entryCount} files) |`,
    `| \`npm install shop-sandbox msw\` in an empty project | ${packages} packages, ${megabytes.toFixed(1)} MB |`,
    `| what \`startSandbox()\` loads in a page (minified by esbuild, msw not counted; Vite 8's build gives some 20% more; split as Vite splits it: the default data set, not faker) | ${kB(alone)} |`,
    `| the same with msw | ${kB(withMsw)} |`,
    '<!-- measured:end -->',
  ].join('\n')
  await rewriteDocBlock(docPages.javascript, 'measured', block.split('\n'))
  console.log(block)
  if (chromiumFound()) {
    console.log('\nbrowser mode, in short (npm run bench runs the full one):')
    const shown = browserTables(await browserBench(shortSettings, () => {}))
    console.log(
      `${table(shown.requestHeader, shown.requestRows)}\n${shown.startLine}\n${shown.heapLine}`,
    )
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
