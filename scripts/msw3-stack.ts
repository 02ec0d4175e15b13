/**
 * The second half of `npm test`: the whole suite again on Node 24 with msw 3 (the first half
 * ran on the machine's Node with msw 2). Node 24 is a real binary from the npm package `node`,
 * and msw 3 is installed from `scripts/msw3/` (its own package.json and lock, so the repo's
 * `npm ci` on Node 20 never sees a package that needs Node 22); both go once into a cache folder
 * (`SHOP_SANDBOX_CACHE_DIR`, default `~/.cache/shop-sandbox`) that `npm ci` does not touch. The
 * sources are copied to `.stack/msw3/` beside a `node_modules` of links to this one's, with
 * `msw` pointing at msw 3. `SHOP_SANDBOX_SKIP_MSW3=1` skips this stack on a developer's machine
 * (never in CI).
 *
 *   npm run test:msw3 [-- vitest arguments]
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join, relative, resolve } from 'node:path'

const NODE_MAJOR = 24
const repo = resolve(import.meta.dirname, '..')
const stack = join(repo, '.stack', 'msw3')
/** Not copied into the stack: installed or generated things. */
const skipped = new Set([
  'node_modules',
  '.git',
  '.stack',
  'dist',
  'coverage',
  'test/artifacts',
  'bench/results',
  'bench/.build',
])

const cache = process.env.SHOP_SANDBOX_CACHE_DIR ?? join(homedir(), '.cache', 'shop-sandbox')

if (process.env.SHOP_SANDBOX_SKIP_MSW3 === '1') {
  if (process.env.CI) {
    console.error(
      'msw3 stack: SHOP_SANDBOX_SKIP_MSW3 is for a developer machine; CI runs both stacks',
    )
    process.exit(1)
  }
  console.log('\nmsw3 stack: skipped (SHOP_SANDBOX_SKIP_MSW3=1); CI runs it\n')
  process.exit(0)
}

function nodeBinary(): string {
  const folder = join(cache, `node${NODE_MAJOR}`)
  const bin = join(folder, 'node_modules', 'node', 'bin')
  if (!existsSync(join(bin, 'node'))) {
    console.log(
      `msw3 stack: downloading Node ${NODE_MAJOR} from npm (the package \`node\`: about 50 MB to download, 190 MB on disk) into ${folder}, once; SHOP_SANDBOX_SKIP_MSW3=1 skips this stack locally`,
    )
    mkdirSync(folder, { recursive: true })
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        folder,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `node@${NODE_MAJOR}`,
      ],
      { stdio: 'inherit' },
    )
  }
  const version = execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim()
  if (!version.startsWith(`v${NODE_MAJOR}.`))
    throw new Error(`${bin}/node is ${version}, not Node ${NODE_MAJOR}`)
  return bin
}

function copySources(): void {
  for (const entry of existsSync(stack) ? readdirSync(stack) : []) {
    if (entry !== 'node_modules') rmSync(join(stack, entry), { recursive: true, force: true })
  }
  mkdirSync(stack, { recursive: true })
  for (const entry of readdirSync(repo)) {
    if (skipped.has(entry)) continue
    cpSync(join(repo, entry), join(stack, entry), {
      recursive: true,
      filter: (source) => !skipped.has(relative(repo, source).split('\\').join('/')),
    })
  }
}

/** msw 3 as `scripts/msw3/package-lock.json` pins it, installed once per lock on Node 24. */
function msw3(bin: string): string {
  const source = join(repo, 'scripts', 'msw3')
  const lock = readFileSync(join(source, 'package-lock.json'))
  const folder = join(cache, `msw3-${createHash('sha256').update(lock).digest('hex').slice(0, 12)}`)
  const msw = join(folder, 'node_modules', 'msw')
  if (!existsSync(join(msw, 'package.json'))) {
    console.log(
      `msw3 stack: installing msw 3 and its dependencies (about 18 MB on disk) into ${folder}, once`,
    )
    rmSync(folder, { recursive: true, force: true })
    mkdirSync(folder, { recursive: true })
    cpSync(join(source, 'package.json'), join(folder, 'package.json'))
    cpSync(join(source, 'package-lock.json'), join(folder, 'package-lock.json'))
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: folder,
      env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` },
      stdio: 'inherit',
    })
  }
  return msw
}

/** node_modules of links into this repo's, except `msw`, which is msw 3. */
function linkModules(msw: string): void {
  const modules = join(stack, 'node_modules')
  rmSync(modules, { recursive: true, force: true })
  mkdirSync(modules)
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'msw' || name === '.package-lock.json') continue
    symlinkSync(join(repo, 'node_modules', name), join(modules, name))
  }
  symlinkSync(msw, join(modules, 'msw'))
}

const bin = nodeBinary()
const mswFolder = msw3(bin)
copySources()
linkModules(mswFolder)
const msw = JSON.parse(
  readFileSync(join(stack, 'node_modules', 'msw', 'package.json'), 'utf8'),
).version
const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` }
const node = execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim()
console.log(`\nmsw3 stack: Node ${node}, msw ${msw}, in ${relative(repo, stack)}\n`)
function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { cwd: stack, env, stdio: 'inherit' })
  } catch (error) {
    console.error(`msw3 stack: ${[command, ...args].join(' ')} failed`)
    process.exit((error as { status?: number }).status ?? 1)
  }
}
run('npm', ['run', '--silent', 'typecheck'])
run('npm', ['run', '--silent', 'build'])
run(join(stack, 'node_modules', '.bin', 'vitest'), ['run', ...process.argv.slice(2)])
