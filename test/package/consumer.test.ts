import type { ChildProcess } from 'node:child_process'
import { execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const exec = promisify(execFile)
const repo = fileURLToPath(new URL('../../', import.meta.url))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** The versions this repo tested with, so the consumer installs from the local npm cache. */
async function installedVersion(name: string): Promise<string> {
  return JSON.parse(await readFile(join(repo, 'node_modules', name, 'package.json'), 'utf8'))
    .version
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
    ],
    {
      cwd: project,
      timeout: 240_000,
    },
  )
}, 300_000)

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  if (project) await rm(join(project, '..'), { recursive: true, force: true })
})

describe('the packed tarball, installed in a fresh project', () => {
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
    expect(size).toBeLessThan(150_000)
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

  it('(b) a Vitest suite with setupServer(...createSandbox().handlers) and plain fetch passes', async () => {
    await writeFile(
      join(project, 'sandbox.test.ts'),
      `import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createSandbox, ErrorCode, type User } from 'shop-sandbox'
import { setupSandbox } from 'shop-sandbox/node'

const sandbox = createSandbox({ baseUrl: 'https://api.example.test' })
const server = setupServer(...sandbox.handlers)
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => sandbox.reset())
afterAll(() => server.close())
const auth = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }

it('creates a user', async () => {
  const response = await fetch('https://api.example.test/users', {
    method: 'POST', headers: auth, body: JSON.stringify({ name: 'consumer', email: 'consumer@example.com' }),
  })
  expect(response.status).toBe(201)
  const user: User = (await response.json()).data
  expect(user.id).toBe(51)
  expect(sandbox.db.users.size).toBe(51)
})

it('starts again from the seeded data after reset()', async () => {
  expect(sandbox.db.users.size).toBe(50)
  const response = await fetch('https://api.example.test/users?keyword=consumer', { headers: auth })
  expect((await response.json()).data.total).toBe(0)
  const taken = await fetch('https://api.example.test/users', {
    method: 'POST', headers: auth, body: JSON.stringify({ name: 'admin', email: 'a@example.com' }),
  })
  expect((await taken.json()).code).toBe(ErrorCode.usernameTaken)
})

it('setupSandbox wraps setupServer', () => {
  const { server, sandbox } = setupSandbox({ baseUrl: 'https://other.example.test' })
  expect(typeof server.listen).toBe('function')
  expect(sandbox.db.users.size).toBe(50)
})
`,
    )
    const { stdout } = await exec(
      join(project, 'node_modules', '.bin', 'vitest'),
      ['run', '--reporter=verbose'],
      {
        cwd: project,
        timeout: 120_000,
      },
    )
    expect(stdout).toMatch(/3 passed/)
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
          types: ['node'],
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
const page: Envelope<ListPayload<Product>> = { code: 0, message: 'success', data: { list: [], total: 0, page: 1, pageSize: 20 } }
const orders: readonly Order[] = sandbox.db.orders.all()
const server: Promise<SandboxServer> = createSandboxServer({ port: 0 })
const browser: (options: { persist: boolean }) => Promise<BrowserSandbox> = startSandbox
export { first, code, page, orders, server, browser, setupSandbox }
`,
    )
    await exec(join(project, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
      cwd: project,
      timeout: 120_000,
    })
  })
})
