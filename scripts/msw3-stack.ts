/**
 * The second half of `npm test`: the whole suite again on Node 24 with msw 3 (the first half
 * ran on the machine's Node with msw 2). msw 3 comes from the `msw3` dev dependency
 * (`npm:msw@3.x`, pinned by the lock file); Node 24 is a real binary from the npm package
 * `node`, installed once into a cache folder (`SHOP_SANDBOX_NODE24_DIR`, default
 * `~/.cache/shop-sandbox/node24`). The sources are copied to `.stack/msw3/` beside a
 * `node_modules` of links to this one's, with `msw` pointing at msw 3: no second install.
 *
 *   npm run test:msw3 [-- vitest arguments]
 */
import { execFileSync } from 'node:child_process'
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

function nodeBinary(): string {
  const folder =
    process.env.SHOP_SANDBOX_NODE24_DIR ??
    join(homedir(), '.cache', 'shop-sandbox', `node${NODE_MAJOR}`)
  const bin = join(folder, 'node_modules', 'node', 'bin')
  if (!existsSync(join(bin, 'node'))) {
    console.log(`msw3 stack: installing Node ${NODE_MAJOR} from npm into ${folder}`)
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

/** node_modules of links into this repo's, except `msw`, which is msw 3. */
function linkModules(): void {
  const modules = join(stack, 'node_modules')
  rmSync(modules, { recursive: true, force: true })
  mkdirSync(modules)
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'msw' || name === '.package-lock.json') continue
    symlinkSync(join(repo, 'node_modules', name), join(modules, name))
  }
  symlinkSync(join(repo, 'node_modules', 'msw3'), join(modules, 'msw'))
}

const bin = nodeBinary()
copySources()
linkModules()
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
