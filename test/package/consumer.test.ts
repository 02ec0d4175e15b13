import type { ChildProcess } from 'node:child_process'
import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify, stripVTControlCharacters } from 'node:util'
import { transform } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { atATime } from '../support/at-a-time.js'

const exec = promisify(execFile)
const repo = fileURLToPath(new URL('../../', import.meta.url))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
/**
 * How long one tsc, attw, npm or Jest command may take before it counts as hung. This file runs
 * beside the docs' recipes (vitest.config.ts) on a two-core machine: a tsc run that takes 25 s
 * alone takes two or three times that there.
 */
const COMMAND_LIMIT = 240_000
/** What a test that runs such a command may take. */
const COMMAND_TIMEOUT = COMMAND_LIMIT + 60_000

/** The versions this repo tested with, so the consumer installs from the local npm cache. */
async function installedVersion(name: string): Promise<string> {
  return JSON.parse(await readFile(join(repo, 'node_modules', name, 'package.json'), 'utf8'))
    .version
}

/**
 * Jest and what its setups use, installed into the consumer project only: Jest's resolver
 * (unrs-resolver) lists platform binaries this machine kind's registry lacks, so in this repo's
 * lock they would make `npm ci` refuse the lock (as Biome did, see the design notes).
 */
const jestPackages = [
  'jest@30.5.2',
  'jest-fixed-jsdom@0.0.11',
  'babel-jest@30.5.2',
  '@babel/core@7.29.13',
  '@babel/preset-env@7.29.14',
]

/** A code block of the Vitest guide, found by its first line. */
async function readmeExample(firstLine: string): Promise<string> {
  const page = await readFile(join(repo, 'docs', 'guide', 'tests-vitest.md'), 'utf8')
  const start = page.indexOf(`${firstLine}\n`)
  if (start < 0) throw new Error(`the Vitest guide has no example starting ${firstLine}`)
  return page.slice(start, page.indexOf('\n```', start) + 1)
}

/** How many tests the guide's example holds: the runners must report that many passed. */
async function exampleTests(): Promise<number> {
  return (await readmeExample('// src/api.test.ts')).match(/^\s*(?:it|test)\(/gm)?.length ?? 0
}

let project = ''
let tarball = ''
const children: ChildProcess[] = []

beforeAll(async () => {
  const work = await mkdtemp(join(tmpdir(), 'shop-sandbox-consumer-'))
  project = join(work, 'app')
  await mkdir(project)
  // npm test has just built dist/; packing must not rebuild it under the other test files' feet.
  await exec(npm, ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: repo })
  tarball = join(
    work,
    (await readdir(work)).find((name) => name.endsWith('.tgz'))!,
  )
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  )
  const deps = await Promise.all(
    ['msw', 'vitest', 'typescript', '@types/node'].map(
      async (name) => `${name}@${await installedVersion(name)}`,
    ),
  )
  await exec(
    npm,
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
      ...deps,
      ...jestPackages,
    ],
    {
      cwd: project,
      timeout: 240_000,
    },
  )
}, 300_000)

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  if (project && !process.env.KEEP_CONSUMER)
    await rm(join(project, '..'), { recursive: true, force: true })
})

describe('the packed tarball, installed in a fresh project', { timeout: COMMAND_TIMEOUT }, () => {
  it('ships only what users need, and is small', async () => {
    const { stdout } = await exec('tar', ['-tzf', tarball])
    const files = stdout.trim().split('\n')
    expect(files.every((file) => /^package\/(dist\/|README\.md$|package\.json$)/.test(file))).toBe(
      true,
    )
    expect(files.some((file) => file.includes('/test/') || file.endsWith('.tsbuildinfo'))).toBe(
      false,
    )
    const { size } = await import('node:fs').then((fs) => fs.promises.stat(tarball))
    // ESM bundles (zod inside, for the cold start), the CommonJS build, their types, the
    // CommonJS copy's bundled faker and its whole English locale (for seeders of your own
    // resources; faker 10 ships no CommonJS), the prepared default data set (one per build), the
    // README, and the same data set as a module the browser entry imports instead of faker (issue
    // 35). Measured 466 kB packed when the English locale came in, 507 kB with the browser's data,
    // 645 kB since the browser's entry is bundled on its own (Node's loads msw's HTTP handlers
    // alone, a module a page's bundle cannot take: scripts/build-esm.ts), 760 kB with the MCP
    // SDK's server bundled into the chunk `shop-sandbox mcp` loads (issue 46: ~70 kB packed
    // instead of ~90 packages, 29 MB, installed beside the package), 801 kB with the
    // twelfth session's hardening (work in slices, budgets for answers and data files), 820 kB
    // with the sixteenth's and seventeenth's (slices by time, timestamps by hand, the checks of
    // `listen()`'s options), 845 kB with lines broken after ~400 characters (scripts/minified.ts),
    // 864 kB with the mends of the twentieth to twenty-seventh sessions (replacements in line and
    // their arrivals, pipelined requests one at a time, the drift check's probes, MCP's stdout):
    // the bound keeps ~20 kB of room for what the next mends add.
    expect(size).toBeLessThan(885_000)
  })

  it('(a) npx shop-sandbox --help, then serve on a free port and answer a request', async () => {
    const bin = join(project, 'node_modules', '.bin', 'shop-sandbox')
    const help = await exec(bin, ['--help'], { cwd: project })
    expect(help.stdout).toContain('--port')
    const child = spawn(bin, ['serve', '--port', '0', '--quiet'], { cwd: project })
    children.push(child)
    let output = ''
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk
        const match = /listening on (\S+)/.exec(output)
        if (match) resolve(match[1]!)
      })
      child.once('exit', () => reject(new Error(output)))
    })
    const response = await fetch(`${url}/products?pageSize=1`, {
      headers: { authorization: 'Bearer sandbox-member-token' },
    })
    expect(response.status).toBe(200)
    expect((await response.json()).data.total).toBe(30)
    child.kill('SIGTERM')
  })

  it("(b) the Vitest guide's example passes as written", async () => {
    await writeFile(join(project, 'api.test.ts'), await readmeExample('// src/api.test.ts'))
    const { stdout } = await exec(
      join(project, 'node_modules', '.bin', 'vitest'),
      ['run', '--reporter=verbose', 'api.test.ts'],
      { cwd: project, timeout: COMMAND_LIMIT },
    )
    const count = await exampleTests()
    expect(count).toBeGreaterThan(2)
    expect(stripVTControlCharacters(stdout)).toMatch(
      new RegExp(`Tests\\s+${count} passed \\(${count}\\)`),
    )
  })

  it('(c) tsc --noEmit type-checks a file importing all three entry points', async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          // TypeScript 6's default: no @types package unless named. The declarations of
          // shop-sandbox/node name Node's types themselves (else TS2591 on 'node:http').
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['check.ts'],
      }),
    )
    await writeFile(
      join(project, 'check.ts'),
      `import { createSandbox, ErrorCode, type Envelope, type ListPayload, type Order, type Product, type User } from 'shop-sandbox'
import { createSandboxServer, setupSandbox, type SandboxServer } from 'shop-sandbox/node'
import { startSandbox, type BrowserSandbox } from 'shop-sandbox/browser'

const sandbox = createSandbox({ seed: 3, users: 10, baseUrl: '/api', auth: true, tokenTtl: 60 })
const snapshot = sandbox.snapshot()
sandbox.restore(snapshot)
const first: User | undefined = sandbox.db.users.get(1)
const code: 40001 = ErrorCode.usernameTaken
declare const body: Envelope<ListPayload<User>>
// The envelope is a union that narrows on \`code\`.
const names: string[] = body.code === 0 ? body.data.list.map((user) => user.name) : []
const failed: null = body.code !== 0 ? body.data : null
const page: Envelope<ListPayload<Product>> = { code: 0, message: 'success', data: { list: [], total: 0, page: 1, pageSize: 20 } }
const orders: readonly Order[] = sandbox.db.orders.all()
const server: Promise<SandboxServer> = createSandboxServer({ port: 0 })
const browser: (options: { persist: boolean }) => Promise<BrowserSandbox> = startSandbox
export { first, code, names, failed, page, orders, server, browser, setupSandbox }
`,
    )
    await exec(join(project, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
      cwd: project,
      timeout: COMMAND_LIMIT,
    })
  })
})

describe('types and CommonJS, as other projects are set up', { timeout: COMMAND_TIMEOUT }, () => {
  const tsc = () => join(project, 'node_modules', '.bin', 'tsc')

  it('(d) attw: the types resolve the same as the code for every entry point and resolution', async () => {
    const attw = join(repo, 'node_modules', '.bin', 'attw')
    const { stdout } = await exec(attw, [tarball, '--format', 'ascii'], { timeout: COMMAND_LIMIT })
    expect(stdout).toContain('No problems found')
  })

  it('(e) a CommonJS TypeScript project passes sandbox.handlers to setupServer and runs', async () => {
    const folder = join(project, 'cjs')
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, 'package.json'), JSON.stringify({ type: 'commonjs' }))
    await writeFile(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          strict: true,
          outDir: 'out',
          skipLibCheck: false,
        },
        files: ['main.ts'],
      }),
    )
    await writeFile(
      join(folder, 'main.ts'),
      `import { setupServer } from 'msw/node'
import { ADMIN_TOKEN, createSandbox, type Envelope, type User } from 'shop-sandbox'
import { setupSandbox } from 'shop-sandbox/node'

const sandbox = createSandbox({ baseUrl: 'https://api.cjs.test' })
const server = setupServer(...sandbox.handlers)
server.listen()
async function main() {
  const response = await fetch('https://api.cjs.test/users/1', { headers: { authorization: \`Bearer \${ADMIN_TOKEN}\` } })
  const body = (await response.json()) as Envelope<User>
  server.close()
  const helper = setupSandbox({ baseUrl: 'https://helper.cjs.test' })
  helper.listen({ onUnhandledRequest: 'error' })
  const second = await fetch('https://helper.cjs.test/products?pageSize=1', { headers: { authorization: \`Bearer \${ADMIN_TOKEN}\` } })
  helper.close()
  helper.close()
  console.log(JSON.stringify({ email: body.code === 0 ? body.data.email : null, products: second.status }))
}
void main()
`,
    )
    await exec(tsc(), ['-p', '.'], { cwd: folder, timeout: COMMAND_LIMIT })
    const { stdout } = await exec(process.execPath, ['out/main.js'], { cwd: folder })
    expect(JSON.parse(stdout)).toEqual({ email: 'admin@example.com', products: 200 })
  })

  it('(f) TypeScript with moduleResolution node (node10) finds all three entry points', async () => {
    const folder = join(project, 'node10')
    await mkdir(folder, { recursive: true })
    await writeFile(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2020',
          module: 'CommonJS',
          moduleResolution: 'node',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['check.ts'],
      }),
    )
    await writeFile(
      join(folder, 'check.ts'),
      `import { createSandbox, ErrorCode, type User } from 'shop-sandbox'
import { setupSandbox } from 'shop-sandbox/node'
import { startSandbox } from 'shop-sandbox/browser'

const user: User | undefined = createSandbox().db.users.get(1)
const code: 40400 = ErrorCode.notFound
export { user, code, setupSandbox, startSandbox }
`,
    )
    await exec(tsc(), ['-p', '.'], { cwd: folder, timeout: COMMAND_LIMIT })
  })
})

/** What every consumer configuration type-checks: the three entry points, own resources, typos. */
const typedConsumer = (kind: 'esm' | 'cjs') => `import * as z from 'zod'
import { createSandbox, defineResource, ErrorCode, idSchema, readOnly, timestampSchema, type Envelope, type User } from 'shop-sandbox'
import { createSandboxServer, setupSandbox, type SandboxServer } from 'shop-sandbox/node'
import { startSandbox, type BrowserSandbox } from 'shop-sandbox/browser'

const tags = defineResource({
  name: 'tags',
  singular: 'tag',
  schema: z.object({ id: readOnly(idSchema), label: z.string(), createdAt: readOnly(timestampSchema), updatedAt: readOnly(timestampSchema) }),
  list: { sortable: ['id', 'label'], keyword: (tag) => tag.label },
  seed: { count: 1, generate: () => [{ label: 'a', createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z' }] },
})
const sandbox = createSandbox({ resources: [tags], users: 5 })
const user: User | undefined = sandbox.db.users.get(1)
const label: string | undefined = sandbox.db.tags.get(1)?.label
// @ts-expect-error: a typo of a field does not compile
void sandbox.db.users.get(1)?.nmae
// @ts-expect-error: a sortable field the schema lacks does not compile
defineResource({ ...tags, list: { sortable: ['lable'] } })
const byEmail: User | undefined = sandbox.db.users.findUnique('email', 'member@example.com')
// @ts-expect-error: an index the resource lacks does not compile (sku is a product's)
void sandbox.db.users.findUnique('sku', 'X-1')
const owned: number[] = sandbox.db.orders.group('userId', 2)
// @ts-expect-error: a group the resource lacks does not compile
void sandbox.db.orders.group('productId', 2)
declare const started: BrowserSandbox
started.worker.events.on('request:start', ({ request }) => void request.url)
const stopWorker: () => void = started.worker.stop
const code: 40001 = ErrorCode.usernameTaken
declare const body: Envelope<User>
const email: string | null = body.code === 0 ? body.data.email : null
const server: Promise<SandboxServer> = createSandboxServer({ port: 0, resources: [tags] })
const browser: (options: { persist: boolean }) => Promise<BrowserSandbox> = startSandbox
${kind === 'esm' ? 'export' : 'module.exports ='} { user, label, code, email, server, browser, setupSandbox, byEmail, owned, stopWorker }
`

/** The msw this run installs into consumers (2 on the first stack, 3 on the second). */
const mswMajorNow = Number(
  JSON.parse(readFileSync(join(repo, 'node_modules', 'msw', 'package.json'), 'utf8')).version.split(
    '.',
  )[0],
)

describe('(g) consumers type-check on TypeScript 5.9, 6 and 7, in every module resolution', () => {
  const typescripts = { '5.9': '', '6': '6.0.3', '7': '7.0.2' }
  const setups: Array<{
    name: string
    type: 'module' | 'commonjs'
    options: Record<string, unknown>
    without?: string[]
  }> = [
    {
      name: 'nodenext-esm',
      type: 'module',
      options: { module: 'NodeNext', moduleResolution: 'NodeNext' },
    },
    {
      name: 'nodenext-cjs',
      type: 'commonjs',
      options: { module: 'NodeNext', moduleResolution: 'NodeNext' },
    },
    {
      name: 'node16-esm',
      type: 'module',
      options: { module: 'Node16', moduleResolution: 'Node16' },
    },
    { name: 'bundler', type: 'module', options: { module: 'ESNext', moduleResolution: 'Bundler' } },
    {
      name: 'node10-cjs',
      type: 'commonjs',
      // zod's own declarations need esModuleInterop under node10, as such projects set it.
      options: {
        module: 'CommonJS',
        moduleResolution: 'node10',
        esModuleInterop: true,
        ignoreDeprecations: '6.0',
      },
      // TypeScript 7 has no node10 resolution left; msw 3's own declarations do not resolve
      // under node10 (its package has no typesVersions), so there it is msw 2 only.
      without: mswMajorNow === 3 ? Object.keys(typescripts) : ['7'],
    },
  ]
  beforeAll(async () => {
    for (const [version, exact] of Object.entries(typescripts)) {
      if (!exact) continue
      await exec(
        npm,
        [
          'install',
          '--prefix',
          join(project, `ts${version}`),
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          `typescript@${exact}`,
        ],
        { cwd: project, timeout: 240_000 },
      )
    }
  }, 300_000)

  // Two at a time (`twoAtATime`): tsc is one thread, the machine has two. Five at once (what
  // `it.concurrent` runs) took ~90 s each on an idle machine, past 120 s beside the suite.
  it.concurrent.each(
    Object.keys(typescripts).flatMap((version) =>
      setups
        .filter((setup) => !setup.without?.includes(version))
        .map((setup) => ({ version, setup })),
    ),
  )(
    'TypeScript $version, $setup.name',
    async ({ version, setup }) => {
      const folder = join(project, `types-${version}-${setup.name}`)
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, 'package.json'), JSON.stringify({ type: setup.type }))
      const { ignoreDeprecations, ...options } = setup.options
      await writeFile(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            types: ['node'],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            ...options,
            ...(ignoreDeprecations && version === '6' ? { ignoreDeprecations } : {}),
          },
          files: ['check.ts'],
        }),
      )
      await writeFile(
        join(folder, 'check.ts'),
        typedConsumer(setup.type === 'module' ? 'esm' : 'cjs'),
      )
      const compiler =
        version === '5.9'
          ? join(project, 'node_modules', '.bin', 'tsc')
          : join(project, `ts${version}`, 'node_modules', '.bin', 'tsc')
      await twoAtATime(() =>
        exec(compiler, ['-p', '.'], { cwd: folder, timeout: COMMAND_LIMIT }).catch(
          (error: { stdout: string }) => {
            throw new Error(`tsc ${version} (${setup.name}) failed:\n${error.stdout}`)
          },
        ),
      )
    },
    // Its turn may come after the others' (~20-40 s each).
    600_000,
  )
})

/** tsc runs, two at a time: tsc is one thread, the machine has two. */
const twoAtATime = atATime(2)

/** The README's Vitest example as a Jest test: in JavaScript, on Jest's globals. */
async function jestTest(): Promise<string> {
  const typescript = (await readmeExample('// src/api.test.ts')).replace(
    /^import .* from 'vitest'\n/m,
    '',
  )
  return (await transform(typescript, { loader: 'ts', format: 'esm' })).code
}

describe('Jest 30, as the README sets it up', { timeout: COMMAND_TIMEOUT }, () => {
  const jest = () => join(project, 'node_modules', '.bin', 'jest')
  const mswMajor = async () => Number((await installedVersion('msw')).split('.')[0])

  async function runJest(folder: string, nodeOptions: string): Promise<string> {
    // Run from the folder, as a project of its own: babel reads babel.config.js from the cwd.
    const { stderr } = await exec(jest(), ['--ci'], {
      cwd: folder,
      timeout: COMMAND_LIMIT,
      env: { ...process.env, NODE_OPTIONS: nodeOptions, NODE_ENV: 'test' },
    })
    return stderr
  }

  for (const environment of ['node', 'jest-fixed-jsdom']) {
    it(`ESM mode (--experimental-vm-modules), testEnvironment ${environment}`, async () => {
      const folder = join(project, `jest-esm-${environment}`)
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, 'package.json'), JSON.stringify({ type: 'module' }))
      await writeFile(
        join(folder, 'jest.config.js'),
        `export default { testEnvironment: '${environment}', transform: {} }\n`,
      )
      await writeFile(join(folder, 'api.test.js'), await jestTest())
      const output = await runJest(folder, '--experimental-vm-modules --no-warnings')
      expect(output).toMatch(new RegExp(`Tests:\\s+${await exampleTests()} passed`))
    })
  }

  it("CommonJS mode with babel-jest, per msw's Jest recipe for the installed major", async () => {
    const folder = join(project, 'jest-cjs')
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, 'package.json'), JSON.stringify({ type: 'commonjs' }))
    await writeFile(
      join(folder, 'babel.config.js'),
      `module.exports = { presets: [['@babel/preset-env', { targets: { node: 'current' } }]] }\n`,
    )
    // msw 2's CommonJS build requires three ESM-only packages, which babel must transform;
    // msw 3 is ESM-only and needs Jest's require(esm), on Node 24.9+ with the VM modules flag.
    const msw2 = (await mswMajor()) === 2
    await writeFile(
      join(folder, 'jest.config.js'),
      msw2
        ? `module.exports = {
  testEnvironment: 'jest-fixed-jsdom',
  transform: { '\\\\.[cm]?[jt]sx?$': 'babel-jest' },
  transformIgnorePatterns: ['/node_modules/(?!(rettime|until-async|@open-draft/deferred-promise)/)'],
}\n`
        : `module.exports = { testEnvironment: 'jest-fixed-jsdom' }\n`,
    )
    await writeFile(join(folder, 'api.test.js'), await jestTest())
    const output = await runJest(folder, msw2 ? '' : '--experimental-vm-modules --no-warnings')
    expect(output).toMatch(new RegExp(`Tests:\\s+${await exampleTests()} passed`))
  })
})
