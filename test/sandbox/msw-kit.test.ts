import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { HttpResponse, passthrough as mswPassthrough } from 'msw'
import { setupServer } from 'msw/node'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as mainEntry from '../../sandbox/msw.js'
import * as nodeKit from '../../sandbox/msw-node.js'
import { mswNodeProblem } from '../../sandbox/msw-entry.js'

const admin = { authorization: 'Bearer sandbox-admin-token' }

describe("msw for Node: msw's HTTP handlers without msw's main entry (sandbox/msw-node.ts)", () => {
  afterEach(() => {
    vi.doUnmock('../../sandbox/msw.js')
    vi.resetModules()
  })

  it('warns that msw 3 needs Node 22.12, on an older Node only', () => {
    expect(mswNodeProblem('3.0.5', '20.19.0')).toBe(
      'msw 3.0.5 needs Node 22.12 or later, and this is Node 20.19.0: its requests will fail (Promise.withResolvers is not a function); install msw 2 (npm install --save-dev msw@2) or use a newer Node',
    )
    expect(mswNodeProblem('3.0.5', '22.11.0')).toMatch(/^msw 3\.0\.5 needs Node 22\.12/)
    for (const [msw, node] of [
      ['3.0.5', '22.12.0'],
      ['3.1.0', '24.1.0'],
      ['2.15.0', '20.19.0'],
    ] as const)
      expect(mswNodeProblem(msw, node)).toBeNull()
  })

  it('has what sandbox/msw.ts has, under the same names', () => {
    expect(Object.keys(nodeKit).sort()).toEqual(Object.keys(mainEntry).sort())
  })

  it("answers as msw's HttpResponse does: the reason phrase, headers, body, no body where none may be", async () => {
    for (const [status, body] of [
      [200, '{"a":1}'],
      [201, new TextEncoder().encode('bytes')],
      [404, 'missing'],
      [503, ''],
    ] as const) {
      const ours = nodeKit.respond(body, { status, headers: { 'x-a': '1' } })
      const msws = new HttpResponse(body, { status, headers: { 'x-a': '1' } })
      expect([ours.status, ours.statusText, ours.headers.get('x-a')]).toEqual([
        msws.status,
        msws.statusText,
        msws.headers.get('x-a'),
      ])
      expect(await ours.text()).toBe(await msws.text())
    }
    for (const status of [204, 205, 304]) {
      const ours = nodeKit.respond('', { status, headers: {} })
      expect([ours.status, ours.body]).toEqual([status, null])
    }
    const cookies = ['session=s3cr3t; HttpOnly', 'csrf=c5rf; Path=/']
    const lines = nodeKit.respond('{}', {
      status: 200,
      headers: cookies.map((line) => ['set-cookie', line] as [string, string]),
    })
    expect(lines.headers.getSetCookie()).toEqual(cookies)
    expect(nodeKit.failed().type).toBe('error')
  })

  it("passthrough() is msw's own answer, which msw 2 and 3 recognise", () => {
    const ours = nodeKit.passthrough()
    const msws = mswPassthrough()
    expect([ours.status, ours.statusText, [...ours.headers]]).toEqual([
      msws.status,
      msws.statusText,
      [...msws.headers],
    ])
  })

  it('makes the handlers setupServer answers with: data, errors, preflights, drops and passthrough', async () => {
    vi.doMock('../../sandbox/msw.js', () => import('../../sandbox/msw-node.js'))
    const { createSandbox } = await import('../../shop/defaults.js')
    const sandbox = createSandbox({ baseUrl: 'https://api.kit.test', passthrough: true })
    const network = setupServer(...sandbox.handlers)
    network.listen()
    try {
      const user = await fetch('https://api.kit.test/users/1', { headers: admin })
      expect([user.status, user.statusText]).toEqual([200, 'OK'])
      expect((await user.json()).data.id).toBe(1)
      const missing = await fetch('https://api.kit.test/users/9999', { headers: admin })
      expect([missing.status, missing.statusText, (await missing.json()).code]).toEqual([
        404,
        'Not Found',
        40400,
      ])
      const preflight = await fetch('https://api.kit.test/users', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.test',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-client',
        },
      })
      expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([
        204,
        'https://app.test',
      ])
      // What the page asked to send is allowed, as on the Node server.
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(
        /,content-type,x-client$/,
      )
      // A preflight carries a request id too (B6): the one sent, echoed.
      const traced = await fetch('https://api.kit.test/users/2', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.test',
          'access-control-request-method': 'PATCH',
          'x-request-id': 'rid-123',
        },
      })
      expect([traced.status, traced.headers.get('x-request-id')]).toEqual([204, 'rid-123'])
      expect(preflight.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      // A dropped connection (an override's `drop`) is a network error to fetch.
      sandbox.override({ method: 'GET', path: '/products', times: 1, response: { drop: true } })
      await expect(
        fetch('https://api.kit.test/products', { headers: admin }),
      ).rejects.toBeInstanceOf(TypeError)
      // Not the sandbox's (passthrough: true): msw lets it go to the network, here refused.
      await expect(fetch('https://api.kit.test/not-a-route')).rejects.toThrow()
    } finally {
      network.close()
    }
  })

  it('an msw that exports neither path has its main entry loaded instead; no msw, a plain error', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-msw-kit-'))
    try {
      const msw = join(folder, 'node_modules', 'msw')
      await mkdir(msw, { recursive: true })
      await writeFile(
        join(msw, 'package.json'),
        JSON.stringify({
          name: 'msw',
          version: '2.14.0',
          type: 'module',
          exports: { '.': './main.js', './package.json': './package.json' },
        }),
      )
      await writeFile(join(msw, 'main.js'), 'export const http = { from: "main" }\n')
      await build({
        entryPoints: [fileURLToPath(new URL('../../sandbox/msw-node.ts', import.meta.url))],
        bundle: true,
        format: 'esm',
        platform: 'node',
        external: ['msw', 'msw/*'],
        outfile: join(folder, 'kit.mjs'),
        logLevel: 'silent',
      })
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { http } = await import('./kit.mjs'); console.log(JSON.stringify(http))`,
        ],
        { cwd: folder },
      )
      expect(JSON.parse(stdout)).toEqual({ from: 'main' })
      // And with no msw at all, the error says what to install.
      await rm(msw, { recursive: true })
      await expect(
        promisify(execFile)(
          process.execPath,
          ['--input-type=module', '-e', `await import('./kit.mjs')`],
          {
            cwd: folder,
          },
        ),
      ).rejects.toMatchObject({
        stderr: expect.stringContaining(
          'shop-sandbox needs msw 2.15+ or 3 installed beside it: npm install msw',
        ),
      })
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it("the built package's Node entry answers without loading msw's main entry", async () => {
    const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url))
    // Every module Node resolves, posted by a resolve hook (a thread of its own) to the program.
    const hooks = `data:text/javascript,${encodeURIComponent(
      'let port; export function initialize(data) { port = data.port } export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r }',
    )}`
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const seen = []
port1.on('message', (url) => seen.push(url))
port1.unref()
register(${JSON.stringify(hooks)}, { data: { port: port2 }, transferList: [port2] })
const settle = () => new Promise((resolve) => setTimeout(resolve, 200))
const { setupServer } = await import('msw/node')
const { createSandbox } = await import(${JSON.stringify(dist)})
const server = setupServer(...createSandbox({ baseUrl: 'https://api.test' }).handlers)
server.listen()
const answer = await fetch('https://api.test/users/1', { headers: { authorization: 'Bearer sandbox-admin-token' } })
server.close()
await settle()
const before = seen.slice()
// The control: importing msw's main entry is seen by the hook.
await import('msw')
await settle()
console.log(JSON.stringify({ status: answer.status, before, after: seen.slice(before.length) }))`,
      ],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    )
    const { status, before, after } = JSON.parse(stdout) as {
      status: number
      before: string[]
      after: string[]
    }
    // msw's main entry: lib/core/index.mjs in msw 2, lib/core/index.js in msw 3.
    const mainEntry = (url: string) => /\/msw\/lib\/core\/index\.m?js$/.test(url)
    expect(status).toBe(200)
    expect(before.some((url) => url.includes('/msw/lib/'))).toBe(true)
    expect(before.filter(mainEntry)).toEqual([])
    expect(after.filter(mainEntry)).toHaveLength(1)
  })
})
