import type { ChildProcess } from 'node:child_process'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { commandNames } from '../../bin/cli.js'

const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const run = promisify(execFile)

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** Starts `shop-sandbox` and resolves with its URL once it prints it. */
async function start(
  ...args: string[]
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed:\n${output}`)), 15_000)
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once('exit', () => reject(new Error(`exited early:\n${output}`)))
  })
  children.push(child)
  return { child, url, output: () => output }
}

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

describe('shop-sandbox CLI', () => {
  it('--help lists the commands, flags and examples', async () => {
    const { code, stdout } = await cli('--help')
    expect(code).toBe(0)
    for (const text of [
      'serve',
      '--port',
      '--host',
      '--seed',
      '--users',
      '--products',
      '--orders',
      '--base-path',
      '--token-ttl',
      '--quiet',
      'Examples:',
    ]) {
      expect(stdout).toContain(text)
    }
    // Defaults as they are typed: numbers and sizes unquoted (they are read as text).
    expect(stdout).toContain('[default: 1]')
    expect(stdout).toContain('[default: 16KB]')
    expect(stdout).not.toMatch(/\[default: "\d/)
    // The commands a mistyped one is compared with are those the help lists.
    const commands = stdout.slice(stdout.indexOf('Commands:'), stdout.indexOf('Options:'))
    expect([...commands.matchAll(/^ {2}shop-sandbox (\w+)/gm)].map((match) => match[1])).toEqual(
      commandNames,
    )
  })

  it('--version prints the package version', async () => {
    const { code, stdout } = await cli('--version')
    expect(code).toBe(0)
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('openapi prints the OpenAPI 3.1 document, for a base URL', async () => {
    const { code, stdout } = await cli('openapi', '--base-url', 'https://api.example.com')
    expect(code).toBe(0)
    const document = JSON.parse(stdout)
    expect(document.openapi).toBe('3.1.0')
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }])
    expect(document.paths['/users/{user_id}/orders']).toBeDefined()
  })

  it('init copies MSW’s worker script into a folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-init-'))
    const bare = await cli('init')
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain(
      "init needs the folder your app serves statically, e.g. 'shop-sandbox init public'",
    )
    const { code, stdout } = await cli('init', join(dir, 'public'))
    expect(code).toBe(0)
    const msw = JSON.parse(
      await readFile(
        fileURLToPath(new URL('../../node_modules/msw/package.json', import.meta.url)),
        'utf8',
      ),
    ).version
    expect(stdout).toContain(`mockServiceWorker.js (msw ${msw})`)
    expect(await readFile(join(dir, 'public', 'mockServiceWorker.js'), 'utf8')).toContain(
      'Mock Service Worker',
    )
  })

  it.each([
    [['--port', 'abc'], "--port must be an integer from 0 to 65535, got 'abc'"],
    [['--port', '70000'], '--port must be an integer from 0 to 65535'],
    [['--users', '1'], '--users must be an integer from 2'],
    [['--base-path', 'api'], '--base-path must look like /api'],
    // Served as /b without a word before; a long one was named as baseUrl, echoed whole.
    [['--base-path', '/a/../b'], "--base-path must look like /api or /api/v1, got '/a/../b'"],
    [
      ['--base-path', `/${'a'.repeat(3000)}`],
      `--base-path must be at most 2000 characters long, got '/${'a'.repeat(59)}…'`,
    ],
    [['--delay', 'soon'], '--delay must be <ms> or <min>-<max>'],
    [['--error-rate', '2'], '--error-rate must be a number from 0 to 1'],
    [['--bogus'], '--bogus is not an option'],
    [['--prot', '4011'], '--prot is not an option; did you mean --port?'],
    [['--usrs', '5'], '--usrs is not an option; did you mean --users?'],
    [['serve', 'extra'], "'extra' is not a command or a flag's value"],
    [['serv'], "'serv' is not a command; did you mean 'serve'?"],
    [['opnapi'], "'opnapi' is not a command; did you mean 'openapi'?"],
    [['--port', '1', '--port', '2'], '--port was given 2 times; give it once'],
    [['--data-format', 'yaml'], "--data-format must be one of pretty, compact, got 'yaml'"],
    [['--cors-origin', 'example.com'], '--cors-origin must be an origin: a scheme, a host'],
    [['--cors-origin', 'http://a.example/app'], "got 'http://a.example/app'"],
    [['--cors-origin', 'http://a.example:65536'], 'a port of 0-65535 (http://localhost:5173)'],
    // A wildcard inside a name matched only its own text: refused, not taken literally.
    [['--cors-origin', 'http://*.example.com'], 'or * alone (no wildcard inside a name'],
    [['--allowed-hosts', 'http://app.local'], '--allowed-hosts must be a host name'],
    [['--strict=maybe'], "--strict takes true or false (or nothing, for true), got 'maybe'"],
    [['--quiet=abc'], "--quiet takes true or false (or nothing, for true), got 'abc'"],
    [['--no-auth=5'], '--no-auth takes no value; give --no-auth, or --auth=false'],
  ])('a bad flag %j exits 2 with a clear message', async (args, message) => {
    const { code, stderr } = await cli(...args)
    expect(code).toBe(2)
    expect(stderr).toContain(message)
  })

  it('starts, prints the URL, counts and tokens, serves, logs, and stops on SIGTERM', async () => {
    const { child, url, output } = await start(
      '--port',
      '0',
      '--users',
      '12',
      '--products',
      '1',
      '--orders',
      '20',
    )
    expect(output()).toContain('12 users, 1 product, 20 orders')
    expect(output()).toContain('sandbox-admin-token')
    expect(output()).toContain('sandbox-member-token')
    const response = await fetch(`${url}/users?pageSize=1`, {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect((await response.json()).data.total).toBe(12)
    await expect.poll(output).toMatch(/GET \/users 200 \d+\.\dms/)
    child.kill('SIGTERM')
    const [exitCode] = await once(child, 'exit')
    expect(exitCode).toBe(0)
  })

  it('--quiet silences the request log; --base-path moves the resources', async () => {
    const { url, output } = await start('--port', '0', '--quiet', '--base-path', '/api')
    expect(url).toMatch(/\/api$/)
    const response = await fetch(`${url}/products`, {
      headers: { authorization: 'Bearer sandbox-member-token' },
    })
    expect(response.status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(output()).not.toMatch(/GET \/api\/products/)
  })

  it('warns when bound to an address other machines can reach', async () => {
    const { output } = await start('--port', '0', '--host', '0.0.0.0')
    expect(output()).toContain('warning: listening on 0.0.0.0')
  })

  it.each([
    [['--data', '/missing/folder/x.json'], 1, 'its folder does not exist'],
    [['--data', '/proc/version'], 1, 'its folder takes no new files'],
    [
      ['--base-path', '/__sandbox'],
      2,
      'baseUrl (--base-path): /__sandbox is inside the control API',
    ],
    [['--host', 'no-such-host.invalid'], 1, 'no such host'],
    [['--users', 'abc'], 2, '--users must be an integer'],
    [['--allowed-hosts'], 2, 'allowed-hosts'],
    [['--bogus'], 2, '--bogus is not an option'],
  ])('a bad start (%j) is one line on stderr and exit %i', async (args, exitCode, text) => {
    const { code, stderr } = await cli(...args, '--port', '0')
    expect(code).toBe(exitCode)
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(text)
  })

  it('--scenarios <folder> of <name>.json and --scenario pick the start; a bad scenario is one line naming it and the field (CONTRACT C5)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-scenarios-'))
    await writeFile(
      join(dir, 'launch-day.json'),
      JSON.stringify({
        description: 'One product, a banner stub, a short delay',
        data: { seed: 3, counts: { users: 5, products: 1, orders: 0 } },
        overrides: [
          { method: 'GET', path: '/banner', response: { status: 200, data: { text: 'Launch!' } } },
        ],
        settings: { delay: 5 },
      }),
    )
    const { url, output } = await start(
      '--port',
      '0',
      '--quiet',
      '--scenarios',
      dir,
      '--scenario',
      'launch-day',
    )
    expect(output()).toContain('scenario:     launch-day')
    const info = await (await fetch(`${url}/__sandbox`)).json()
    expect(info.data).toMatchObject({
      scenario: 'launch-day',
      counts: { users: 5, products: 1, orders: 0 },
      config: { delay: 5 },
    })
    expect((await (await fetch(`${url}/banner`)).json()).data).toEqual({ text: 'Launch!' })
    const listed = await (await fetch(`${url}/__sandbox/scenarios?pageSize=100`)).json()
    expect(listed.data.list.map((one: { name: string }) => one.name)).toContain('launch-day')
    await writeFile(
      join(dir, 'broken.json'),
      JSON.stringify({ description: 'd', settings: { errorRate: 3 } }),
    )
    const bad = await cli('--port', '0', '--scenarios', dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).toContain("Invalid scenario 'broken': settings.errorRate: must be at most 1")
    const unknown = await cli('--port', '0', '--scenario', 'emtpy')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("no scenario named 'emtpy'; known (closest first): empty")
    // A file that is no regular file is never read: a FIFO hung the start, /dev/zero ran it
    // out of memory.
    await rm(join(dir, 'broken.json'))
    await symlink('/dev/zero', join(dir, 'zero.json'))
    const zero = await cli('--port', '0', '--scenarios', dir)
    expect(zero.code).toBe(1)
    expect(zero.stderr).toContain(
      `--scenarios ${join(dir, 'zero.json')}: not a regular file (a FIFO or a device is never read)`,
    )
    await rm(join(dir, 'zero.json'))
    await run('mkfifo', [join(dir, 'pipe.json')])
    const pipe = await cli('--port', '0', '--scenarios', dir)
    expect(pipe.code).toBe(1)
    expect(pipe.stderr).toContain(`${join(dir, 'pipe.json')}: not a regular file`)
    // Counted before any is read: a folder of more than a sandbox takes is one line.
    await rm(join(dir, 'pipe.json'))
    await Promise.all(
      Array.from({ length: 1001 }, (_, n) => writeFile(join(dir, `s${n}.json`), '{')),
    )
    const many = await cli('--port', '0', '--scenarios', dir)
    expect(many.code).toBe(1)
    expect(many.stderr.trim()).toBe(
      `shop-sandbox: --scenarios ${dir}: the folder holds 1002 <name>.json files; a sandbox takes at most 1,000 scenarios`,
    )
  })

  it('--overrides loads overrides from a JSON file at start; a bad file is one line and exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-overrides-'))
    const file = join(dir, 'overrides.json')
    await writeFile(
      file,
      JSON.stringify([
        { method: 'GET', path: '/products', response: { status: 503 } },
        {
          path: '/users/{user_id}',
          headers: { 'X-Client': 'ios' },
          responses: [{ status: 502 }, { status: 200, data: { ios: true } }],
        },
      ]),
    )
    const { url } = await start('--port', '0', '--quiet', '--overrides', file)
    const products = await fetch(`${url}/products`, {
      headers: { authorization: 'Bearer sandbox-member-token' },
    })
    expect(products.status).toBe(503)
    const ios = () =>
      fetch(`${url}/users/2`, {
        headers: { authorization: 'Bearer sandbox-admin-token', 'x-client': 'ios' },
      })
    expect((await ios()).status).toBe(502)
    expect((await (await ios()).json()).data).toEqual({ ios: true })
    await writeFile(
      file,
      JSON.stringify([
        { path: '/products', response: { status: 503 } },
        { path: '/users', response: { status: 200, headers: { 'X-Evil': 'a\r\nb' } } },
      ]),
    )
    const bad = await cli('--port', '0', '--overrides', file)
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    // The file, the entry (0-based, as in the array) and the field.
    expect(bad.stderr).toContain(
      `--overrides ${file}, entry [1]: response.headers.X-Evil: must not contain CR, LF`,
    )
  })

  it('--overrides: a byte order mark is fine; past --max-overrides the line names the file and entry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-overrides-'))
    const file = join(dir, 'overrides.json')
    const entry = (i: number) => ({ path: `/stub/${i}`, response: { status: 200 } })
    await writeFile(file, `\uFEFF${JSON.stringify([entry(0)])}`)
    const { url } = await start('--port', '0', '--quiet', '--overrides', file)
    expect((await fetch(`${url}/stub/0`)).status).toBe(200)
    await writeFile(file, JSON.stringify(Array.from({ length: 3 }, (_, i) => entry(i))))
    const full = await cli('--port', '0', '--max-overrides', '2', '--overrides', file)
    expect(full.code).toBe(1)
    expect(full.stderr.trim()).toBe(
      `shop-sandbox: --overrides ${file}, entry [2]: one of 3 overrides, past the 2 a sandbox keeps (--max-overrides)`,
    )
    // Only a regular file, and one its overrides could fit: not a device that never ends.
    const device = await cli('--port', '0', '--overrides', '/dev/zero')
    expect(device.code).toBe(1)
    expect(device.stderr.trim()).toBe(
      'shop-sandbox: --overrides /dev/zero is not a file (a JSON array of overrides is read from a regular file)',
    )
    await writeFile(file, `[${' '.repeat(300 * 1024)}]`)
    const huge = await cli('--port', '0', '--overrides-bytes', '65536', '--overrides', file)
    expect(huge.code).toBe(1)
    expect(huge.stderr.trim()).toBe(
      `shop-sandbox: --overrides ${file} holds ${300 * 1024 + 2} bytes: more than its overrides could take (--overrides-bytes 65536)`,
    )
  })

  it('--resources <module> serves its definitions beside the shop’s, with counts, banner and OpenAPI', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-resources-'))
    const index = new URL('../../dist/index.js', import.meta.url).href
    const zod = new URL('../../node_modules/zod/index.js', import.meta.url).href
    const definition = (extension: string) => `
import { z } from '${zod}'
import { defineResource, idSchema, readOnly, timestampSchema } from '${index}'
const at = '2025-01-01T00:00:00.000Z'
export default [
  defineResource({
    name: 'tags',
    singular: 'tag',
    schema: z.object({ id: readOnly(idSchema), label: z.string(), createdAt: readOnly(timestampSchema), updatedAt: readOnly(timestampSchema) }),
    list: { sortable: ['id', 'label'], keyword: (tag${extension === 'ts' ? ': { label: string }' : ''}) => tag.label },
    permissions: { list: 'anyone', read: 'anyone' },
    seed: { count: 3, generate: ({ count }) => Array.from({ length: count }, (_, i) => ({ label: 'Tag ' + i, createdAt: at, updatedAt: at })) },
  }),
]
`
    await writeFile(join(dir, 'tags.mjs'), definition('mjs'))
    const { url, output } = await start(
      '--port',
      '0',
      '--resources',
      join(dir, 'tags.mjs'),
      '--counts',
      'tags=5',
    )
    expect(output()).toContain(`resources:    tags from ${join(dir, 'tags.mjs')}`)
    expect(output()).toContain('5 tags')
    const list = await fetch(`${url}/tags?sort=label&order=desc`, {
      headers: { authorization: 'Bearer sandbox-member-token' },
    })
    const tags = (await list.json()).data
    expect(tags.total).toBe(5)
    expect(tags.list[0].label).toBe('Tag 4')
    const document = await (await fetch(`${url}/openapi.json`)).json()
    expect(Object.keys(document.paths)).toContain('/tags/{tag_id}')
    // The resource's own count flag exists once the module is loaded.
    const counted = await start('--port', '0', '--resources', join(dir, 'tags.mjs'), '--tags', '7')
    expect(counted.output()).toContain('7 tags')

    // A TypeScript module: Node strips types itself from 22.18 on; before, one line says what to do.
    await writeFile(join(dir, 'tags.ts'), definition('ts'))
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
    if (major > 22 || (major === 22 && minor >= 18)) {
      const typed = await start('--port', '0', '--resources', join(dir, 'tags.ts'))
      expect(typed.output()).toContain('3 tags')
    } else {
      const refused = await cli('--port', '0', '--resources', join(dir, 'tags.ts'))
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("run with NODE_OPTIONS='--import tsx'")
    }

    // A module of mistakes: one line naming the module, the resource and the field.
    await writeFile(
      join(dir, 'bad.mjs'),
      definition('mjs').replace("sortable: ['id', 'label']", "sortable: ['id', 'lable']"),
    )
    const bad = await cli('--port', '0', '--resources', join(dir, 'bad.mjs'))
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toMatch(
      /^shop-sandbox: --resources \S+bad\.mjs: tags\.list\.sortable\[1\]: no field "lable" in the schema of tags/,
    )
    const missing = await cli('--port', '0', '--resources', join(dir, 'nope.mjs'))
    expect(missing.stderr).toContain('nope.mjs: no such module')
    // A resource named like a flag of the command line: refused before the flags are made
    // (named help, its count flag was --help: the start printed the help and exited 0).
    await writeFile(
      join(dir, 'help.mjs'),
      definition('mjs')
        .replace("name: 'tags'", "name: 'help'")
        .replace("singular: 'tag'", "singular: 'helper'"),
    )
    // A module whose export is a promise, or cannot be read: one line naming it, no stack.
    await writeFile(join(dir, 'later.mjs'), 'export default Promise.resolve([])\n')
    expect((await cli('--port', '0', '--resources', join(dir, 'later.mjs'))).stderr.trim()).toMatch(
      /^shop-sandbox: --resources \S+later\.mjs: its default export is a promise: export the list itself/,
    )
    await writeFile(
      join(dir, 'trap.mjs'),
      "export default new Proxy([], { get() { throw new Error('trap') }, getPrototypeOf() { throw new Error('trap') } })\n",
    )
    expect((await cli('--port', '0', '--resources', join(dir, 'trap.mjs'))).stderr.trim()).toMatch(
      /^shop-sandbox: --resources \S+trap\.mjs: its export cannot be read: trap$/,
    )
    const help = await cli('--port', '0', '--resources', join(dir, 'help.mjs'))
    expect(help.code).toBe(1)
    expect(help.stderr.trim()).toMatch(
      /^shop-sandbox: --resources \S+help\.mjs: help\.name: help is a flag the command line takes for itself \(--help\)/,
    )

    // Counts of unknown or malformed form: one line, exit 2, naming --counts.
    for (const [value, text] of [
      ['tags', "--counts takes <name>=<count> with a count from 0, like tags=40, got 'tags'"],
      ['tags=-1', "got 'tags=-1'"],
      [
        'ghosts=3',
        '--counts ghosts=3: no resource named ghosts (resources: users, products, orders, tags)',
      ],
    ]) {
      const counted = await cli(
        '--port',
        '0',
        '--resources',
        join(dir, 'tags.mjs'),
        '--counts',
        value!,
      )
      expect(counted.code).toBe(2)
      expect(counted.stderr.trim().split('\n')).toHaveLength(1)
      expect(counted.stderr).toContain(text)
    }
    // A count given twice is refused, not the last one taken.
    const twice = await cli(
      '--port',
      '0',
      '--resources',
      join(dir, 'tags.mjs'),
      '--counts',
      'tags=1',
      '--counts',
      'tags=2',
    )
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain(
      '--counts tags=2: tags is given twice (--counts tags=1); give it once',
    )
  })

  it('--resources is repeatable; --api serves an API of your own (defineApi) instead of the shop', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-api-'))
    const index = new URL('../../dist/index.js', import.meta.url).href
    const zod = new URL('../../node_modules/zod/index.js', import.meta.url).href
    const header = `import { z } from '${zod}'
import { defineApi, defineResource, idSchema, readOnly, timestampSchema } from '${index}'
const at = '2025-01-01T00:00:00.000Z'
const stamps = { createdAt: readOnly(timestampSchema), updatedAt: readOnly(timestampSchema) }
`
    await writeFile(
      join(dir, 'notes.mjs'),
      `${header}export default defineResource({ name: 'notes', singular: 'note', schema: z.object({ id: readOnly(idSchema), text: z.string(), ...stamps }), list: { sortable: ['id'] }, seed: { count: 2, generate: ({ count }) => Array.from({ length: count }, (_, i) => ({ text: 'n' + i, createdAt: at, updatedAt: at })) } })
`,
    )
    await writeFile(
      join(dir, 'pins.mjs'),
      `${header}export default [defineResource({ name: 'pins', singular: 'pin', schema: z.object({ id: readOnly(idSchema), x: z.int(), ...stamps }), list: { sortable: ['id'] }, seed: { count: 4, generate: ({ count }) => Array.from({ length: count }, (_, i) => ({ x: i, createdAt: at, updatedAt: at })) } })]
`,
    )
    await writeFile(
      join(dir, 'library.mjs'),
      `${header}const members = defineResource({ name: 'members', singular: 'member', schema: z.object({ id: readOnly(idSchema), handle: z.string(), kind: z.enum(['admin', 'member']), ...stamps }), unique: { handle: { conflict: { code: 40921, message: 'Handle taken' } } }, list: { sortable: ['id'] }, permissions: { read: 'own' }, seed: { count: 3, generate: ({ count }) => Array.from({ length: count }, (_, i) => ({ handle: 'h' + i, kind: i === 0 ? 'admin' : 'member', createdAt: at, updatedAt: at })) } })
export default defineApi({ title: 'Library API', resources: [members], accounts: { resource: members, login: 'handle', password: 'pw', role: { field: 'kind', admin: 'admin' }, tokens: [{ token: 'lib-admin', userId: 1, description: 'the librarian' }] } })
`,
    )
    const both = await start(
      '--port',
      '0',
      '--resources',
      join(dir, 'notes.mjs'),
      '--resources',
      join(dir, 'pins.mjs'),
    )
    expect(both.output()).toContain('2 notes, 4 pins')
    expect(both.output()).toContain(
      `resources:    notes, pins from ${join(dir, 'notes.mjs')}, ${join(dir, 'pins.mjs')}`,
    )

    const library = await start('--port', '0', '--api', join(dir, 'library.mjs'), '--members', '5')
    expect(library.output()).toContain('listening on')
    expect(library.output()).toContain('(Library API)')
    expect(library.output()).toContain('5 members')
    expect(library.output()).toContain('lib-admin  (the librarian)')
    const signIn = await fetch(`${library.url}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'h1', password: 'nope' }),
    })
    expect(await signIn.json()).toEqual({
      code: 40102,
      message: 'wrong handle or password',
      data: null,
    })
    const own = await fetch(`${library.url}/members/1`, {
      headers: { authorization: 'Bearer lib-admin' },
    })
    expect(own.status).toBe(200)
    // Every page is titled after the API served, not after the shop.
    const docs = await (await fetch(`${library.url}/docs`)).text()
    expect(docs).toContain('<title>Library API reference (shop-sandbox)</title>')
    expect(docs).not.toContain('Shop API')
    expect(
      (await fetch(`${library.url}/users`, { headers: { authorization: 'Bearer lib-admin' } }))
        .status,
    ).toBe(404)

    const swapped = await cli('--port', '0', '--resources', join(dir, 'library.mjs'))
    expect(swapped.code).toBe(1)
    expect(swapped.stderr).toContain(
      'its default export is an API (defineApi), not resources: pass it with --api',
    )
    const notApi = await cli('--port', '0', '--api', join(dir, 'pins.mjs'))
    expect(notApi.stderr).toContain('this module exports resources: pass it with --resources')
  })

  it('says so when the port is taken', async () => {
    const first = await start('--port', '0')
    const port = new URL(first.url).port
    const { code, stderr } = await cli('--port', port)
    expect(code).toBe(1)
    expect(stderr).toContain(`port ${port} is in use`)
    // The port of $PORT (no --port given) is named too.
    const fromEnv = await run(process.execPath, [bin], {
      env: { ...process.env, PORT: port },
    }).catch((error: { code: number; stderr: string }) => error)
    expect(fromEnv.stderr).toContain(`port ${port} is in use`)
  })
})

describe('a slow start on a terminal', () => {
  it.runIf(process.platform === 'linux')(
    'shows a progress bar while a big data set is generated',
    async () => {
      // `script` gives the CLI a pseudo-terminal, as a person starting it would have.
      // The bar waits a second before it appears; 0 here, so the test does not depend on machine speed.
      const command = `${process.execPath} ${bin} --port 0 --users 60000 --orders 120000 --quiet`
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, SHOP_SANDBOX_PROGRESS_AFTER_MS: '0' },
      })
      children.push(child)
      let output = ''
      child.stdout!.on('data', (chunk) => (output += chunk))
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 30_000)
        child.stdout!.on('data', () => {
          if (output.includes('listening on')) {
            clearTimeout(timer)
            resolve()
          }
        })
      })
      expect(output).toMatch(/generating data .*\d+%/)
      child.kill('SIGKILL')
    },
    40_000,
  )
})

describe("the options reference's table", () => {
  it('states the defaults the CLI uses for every bound', async () => {
    const { defaultLimits } = await import('../../state/limits.js')
    const bytes = (await import('bytes')).default
    const reference = (
      await readFile(
        fileURLToPath(new URL('../../docs/reference/options.md', import.meta.url)),
        'utf8',
      )
    ).replace(/ +/g, ' ')
    const { journal } = defaultLimits
    for (const [flag, value] of [
      ['--journal-size', String(journal.size)],
      ['--journal-body-bytes', bytes.format(journal.bodyBytes)],
      ['--journal-bytes', bytes.format(journal.bytes)],
      ['--max-sessions', String(defaultLimits.maxSessions)],
      ['--max-document-bytes', bytes.format(defaultLimits.maxDocumentBytes)],
    ])
      expect(reference).toMatch(new RegExp(`\\| \`${flag} <\\w+>\` \\| \`${value}\` \\|`))
  })
})

describe('a mistake in code using the built package', () => {
  it.each([
    [
      'ESM',
      `import('${new URL('../../dist/index.js', import.meta.url).href}').then((m) => m.createSandbox({ users: -1 }))`,
    ],
    [
      'CommonJS',
      `require(${JSON.stringify(fileURLToPath(new URL('../../dist/cjs/index.js', import.meta.url)))}).createSandbox({ users: -1 })`,
    ],
  ])(
    '%s: its uncaught error shows the message under one short line of the build, not a whole chunk',
    async (_, code) => {
      const failed = await run(process.execPath, ['-e', code]).catch(
        (error: { stderr: string }) => error,
      )
      expect(failed.stderr).toContain('users: must be an integer from 2 to 1000000, got -1')
      // Node prints the line the error was thrown from: short lines (scripts/minified.ts).
      expect(failed.stderr.length).toBeLessThan(10_000)
    },
  )
})
