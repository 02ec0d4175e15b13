import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  lineGuard,
  lineProblem,
  MAX_LINE_BYTES,
  MAX_MESSAGE_COMMAS,
  topLevelId,
} from '../../mcp/stdio.js'
import { tools } from '../../mcp/tools.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { callTool, contractTools } from './client.js'

/**
 * `shop-sandbox mcp` as an agent's client starts it (CONTRACT C6): the built command over stdio,
 * driven by the SDK's own client; with a sandbox of its own, and with `--url` acting on a
 * running server the test also calls as "the developer's app".
 */
const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const run = promisify(execFile)

const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

/**
 * `shop-sandbox mcp <args>` started by the SDK's stdio transport (or `<args>` as given when they
 * name the command), and a client connected to it.
 */
async function agent(...args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...(args.includes('mcp') ? [] : ['mcp']), ...args],
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr!.on('data', (chunk) => (stderr += chunk))
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' })
  await client.connect(transport)
  clients.push(client)
  return {
    client,
    call: (name: string, args?: Record<string, unknown>) => callTool(client, name, args),
    stderr: () => stderr,
  }
}

describe('shop-sandbox mcp over stdio, with a sandbox of its own', () => {
  it('lists the twelve tools and serves the data options (--seed, counts, --scenario)', async () => {
    const { client, call, stderr } = await agent(
      '--seed',
      '7',
      '--users',
      '6',
      '--scenario',
      'out-of-stock',
    )
    expect(client.getServerVersion()?.name).toBe('shop-sandbox')
    const { tools: listed } = await client.listTools()
    expect(listed.map((tool) => tool.name)).toEqual(contractTools)
    expect(listed.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name))
    // The methods are listed as the validator takes them (any case is taken too).
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
    const methodOf = (name: string) =>
      (listed.find((tool) => tool.name === name)?.inputSchema.properties?.method as { enum?: [] })
        ?.enum
    expect([methodOf('call_api'), methodOf('add_override')]).toEqual([methods, methods])

    const users = await call('get_data', { resource: 'users' })
    expect(users.structured.users).toHaveLength(6)
    const product = await call('call_api', { method: 'GET', path: '/products/1', as: 'member' })
    expect(product.structured).toMatchObject({ status: 200, body: { data: { id: 1, stock: 0 } } })
    expect((await call('list_scenarios')).structured.current).toBe('out-of-stock')
    expect(stderr()).toMatch(
      /shop-sandbox mcp \S+: serving a sandbox in the MCP server’s own process over stdio/,
    )
  })

  it('serves --resources beside the shop’s and --scenarios of your own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shop-sandbox-mcp-'))
    const index = new URL('../../dist/index.js', import.meta.url).href
    const zod = new URL('../../node_modules/zod/index.js', import.meta.url).href
    await writeFile(
      join(dir, 'tags.mjs'),
      `import { z } from '${zod}'
import { defineResource, idSchema } from '${index}'
export default [defineResource({ name: 'tags', singular: 'tag', schema: z.object({ id: idSchema, label: z.string() }), list: { sortable: ['id'] },
  permissions: { list: 'anyone', read: 'anyone' },
  seed: { count: 2, generate: ({ count }) => Array.from({ length: count }, (_, i) => ({ label: 'Tag ' + i })) } })]
`,
    )
    await writeFile(
      join(dir, 'scenarios.mjs'),
      `console.log('scenarios loaded')
process.stdout.write('written to stdout\\n')
export default [{ name: 'quiet', description: 'No one ordered yet', data: { counts: { orders: 0 } } }]`,
    )
    // The command after a flag, as yargs takes it too.
    const { call, stderr } = await agent(
      '--resources',
      join(dir, 'tags.mjs'),
      'mcp',
      '--scenarios',
      join(dir, 'scenarios.mjs'),
      '--scenario',
      'quiet',
    )
    const described = await call('describe_api')
    expect(described.structured.resources.map((one: { name: string }) => one.name)).toEqual([
      'users',
      'products',
      'orders',
      'tags',
    ])
    const tags = await call('call_api', { method: 'GET', path: '/tags', as: 'member' })
    expect(tags.structured.body.data?.total, tags.text).toBe(2)
    const orders = await call('call_api', { method: 'GET', path: '/orders' })
    expect(orders.structured.body.data.total).toBe(0)
    // What the user's module logs goes to stderr: stdout is the protocol's.
    expect(stderr()).toContain('scenarios loaded')
    // Also what it writes to process.stdout itself: it was a line of no JSON-RPC in the stream.
    expect(stderr()).toContain('written to stdout')
  })

  it('refuses a bad command line in one line naming the flag', async () => {
    const refused = async (...args: string[]) => {
      try {
        await run(process.execPath, [bin, 'mcp', ...args])
        throw new Error('exited 0')
      } catch (error) {
        return error as { code: number; stderr: string; stdout: string }
      }
    }
    const url = await refused('--url', 'ftp://example.com')
    expect(url.code).toBe(2)
    expect(url.stdout).toBe('')
    expect(url.stderr.trim()).toBe(
      "shop-sandbox mcp: --url must be the URL of a running sandbox, like http://127.0.0.1:4010, got 'ftp://example.com'",
    )
    const cases: Array<[string[], string]> = [
      [
        ['--url', 'http://127.0.0.1:4010', '--seed', '3'],
        "--seed is for the MCP server's own sandbox; with --url the running server's options apply",
      ],
      [
        ['--url', 'http://127.0.0.1:4010', '--url', 'http://127.0.0.1:4011'],
        '--url is given more than once',
      ],
      [
        ['--url', 'http://me:secret@127.0.0.1:4010'],
        "--url must be the server's address and base path only: no credentials, query or fragment",
      ],
    ]
    for (const [args, message] of cases) {
      const problem = await refused(...args)
      expect(problem.code, args.join(' ')).toBe(2)
      expect(problem.stdout).toBe('')
      expect(problem.stderr).toContain(`shop-sandbox mcp: ${message}`)
    }
    const scenario = await refused('--scenario', 'out-of-stok')
    expect(scenario.code).toBe(2)
    expect(scenario.stdout).toBe('')
    expect(scenario.stderr).toMatch(
      /^shop-sandbox mcp: Invalid sandbox options: scenario: no scenario named 'out-of-stok'; known \(closest first\): out-of-stock,/,
    )
  })
})

describe('shop-sandbox mcp over stdio, as a raw client sends', () => {
  it('refuses a message past its limit or not JSON-RPC with a JSON-RPC error, and goes on serving', async () => {
    const child = spawn(process.execPath, [bin, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] })
    const answers: Array<{ id: number | null; result?: { tools: unknown[] }; error?: unknown }> = []
    collectAnswers(child, answers)
    const send = initialized(child, 1, 'raw')
    const body = 'x'.repeat(MAX_LINE_BYTES + 1)
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'call_api', arguments: { method: 'POST', path: '/users', body } },
    })
    // Its id written last, as the SDK's client writes it: read from the bytes dropped.
    send({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'call_api', arguments: { method: 'POST', path: '/users', body } },
      id: 12,
    })
    // Lines that are not one JSON-RPC 2.0 message: answered in JSON-RPC's words, with the id
    // when there was one (the SDK's own reader dropped them without a word).
    child.stdin.write('not json\n')
    send([])
    send({ jsonrpc: '1.0', id: 7, method: 'tools/list' })
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: null })
    child.stdin.write(
      `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n`,
    )
    // Too wide to parse in time (the loop was held 0.5-1.5 s): refused unread, its id found.
    const wide = (keys: number) =>
      Object.fromEntries(Array.from({ length: keys }, (_, n) => [`k${n}`, ',']))
    send({ jsonrpc: '2.0', method: 'tools/list', params: wide(MAX_MESSAGE_COMMAS + 1), id: 10 })
    // As wide as may be (commas inside strings do not count): read.
    send({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: wide(MAX_MESSAGE_COMMAS - 2) })
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
    while (!answers.some((answer) => answer.id === 3)) await once(child.stdout, 'data')
    const errors = answers.filter((answer) => ![1, 3, 11].includes(answer.id!))
    expect(errors.map((answer) => [answer.id, (answer.error as { code: number }).code])).toEqual([
      // Too long to keep, answered to its id (with null, the SDK's client waited a minute).
      [2, -32600],
      [12, -32600],
      [null, -32700],
      [null, -32600],
      [7, -32600],
      [8, -32600],
      // Too deep to read, but its id is told: the caller waiting for 9 gets its answer.
      [9, -32600],
      [10, -32600],
    ])
    expect((errors[6]!.error as { message: string }).message).toContain('nests deeper than')
    expect((errors[7]!.error as { message: string }).message).toBe(
      `message holds more than ${MAX_MESSAGE_COMMAS} keys and list items`,
    )
    expect(answers.find((answer) => answer.id === 11)!.result!.tools).toHaveLength(12)
    expect(errors[0]).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32600,
        message: expect.stringContaining(`at most ${MAX_LINE_BYTES} bytes per message`),
      },
    })
    expect(answers.filter((answer) => answer.id === 2)).toHaveLength(1)
    expect(answers.find((answer) => answer.id === 3)!.result!.tools).toHaveLength(12)
    child.stdin.end()
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
  })
})

describe('shop-sandbox mcp over stdio: a __proto__ key in a call’s arguments', () => {
  it('is an error result naming it, and the call does not run without it', async () => {
    const child = spawn(process.execPath, [bin, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] })
    const answers: Array<{
      id: number
      result?: { isError?: boolean; content: { text: string }[] }
    }> = []
    collectAnswers(child, answers)
    initialized(child, 1, 'proto')
    // Written as JSON text: JSON.parse makes `__proto__` a key of its own, as a client's line does.
    child.stdin.write(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set_settings","arguments":{"__proto__":{"auth":false}}}}\n',
    )
    child.stdin.write(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_settings","arguments":{}}}\n',
    )
    while (!answers.some((answer) => answer.id === 3)) await once(child.stdout, 'data')
    const refused = answers.find((answer) => answer.id === 2)!.result!
    expect(refused.isError).toBe(true)
    expect(refused.content[0]!.text).toBe('Invalid input: __proto__: is not a known field')
    const settings = JSON.parse(answers.find((answer) => answer.id === 3)!.result!.content[0]!.text)
    expect(settings.auth).toBe(true)
    child.stdin.end()
    await once(child, 'exit')
  })
})

describe('shop-sandbox mcp with a client slow to read', () => {
  it('answers forty calls sent while it read nothing, with no warning on stderr but its first line', async () => {
    // Each answer some 40 kB: the pipe fills, and every answer after waits for it to drain.
    const { child, stderr, answers } = await sentUnread('slow', 40, 1500, [], {
      method: 'tools/call',
      params: { name: 'get_data', arguments: {} },
    })
    while (answers.length < 41) await once(child.stdout, 'data')
    child.stdin.end()
    await once(child, 'exit')
    // Node warned of a leak (MaxListenersExceededWarning) where the SDK waits for the pipe.
    expect(stderr()).toMatch(/^shop-sandbox mcp [^\n]*: serving a sandbox[^\n]*\n$/)
  })
  it('300 reads of the OpenAPI document sent unread under a 128 MB heap: it waits for the client, and answers each', async () => {
    // Each answer some 700 kB in memory: read as fast as they came, the answers piled up
    // (past the heap's limit, an abort); and the SDK kept every answer sent until stdout's next
    // 'drain', which a client reading as fast as they come may never let happen.
    const { child, stderr, answers, exitedEarly } = await sentUnread(
      'unread',
      300,
      2000,
      ['--max-old-space-size=128'],
      { method: 'resources/read', params: { uri: 'shop-sandbox://openapi.json' } },
    )
    expect(exitedEarly).toBe(false)
    while (answers.length < 301 && child.exitCode === null)
      await Promise.race([once(child.stdout, 'data'), once(child, 'exit')])
    // None refused for load: the client waited, not the server's memory.
    const reads = (
      answers as Array<{ id: number; result?: { contents: Array<{ text: string }> } }>
    ).filter((answer) => answer.id > 0)
    expect(reads.map((answer) => answer.id)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1))
    expect(reads.every((answer) => answer.result!.contents[0]!.text.includes('"openapi"'))).toBe(
      true,
    )
    child.stdin.end()
    expect((await once(child, 'exit'))[0]).toBe(0)
    expect(stderr()).not.toContain('heap out of memory')
  }, 60_000)
})

/**
 * `shop-sandbox mcp` started raw (`flags` for node), its stderr kept, and `count` requests
 * (ids 1, 2, …) sent after its `initialize` while its stdout is not read for `ms`; then read,
 * each answer parsed into `answers` as it comes.
 */
async function sentUnread(
  name: string,
  count: number,
  ms: number,
  flags: string[],
  request: { method: string; params: object },
) {
  const child = spawn(process.execPath, [...flags, bin, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const send = initialized(child, 0, name)
  for (let id = 1; id <= count; id++) send({ jsonrpc: '2.0', id, ...request })
  child.stdout.pause()
  await new Promise((resolve) => setTimeout(resolve, ms))
  const exitedEarly = child.exitCode !== null
  const answers: unknown[] = []
  collectAnswers(child, answers)
  child.stdout.resume()
  return { child, stderr: () => stderr, answers, exitedEarly }
}

/** Parses each line `child` writes to stdout (one JSON-RPC message) into `answers`, as it comes. */
function collectAnswers(child: ChildProcessWithoutNullStreams, answers: unknown[]): void {
  let buffer = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      answers.push(JSON.parse(buffer.slice(0, end)))
      buffer = buffer.slice(end + 1)
    }
  })
}

/** A raw client's `send` to `shop-sandbox mcp`, after its `initialize` (as `id`) and `initialized`. */
function initialized(child: ChildProcessWithoutNullStreams, id: number, name: string) {
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
  send({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name, version: '1' },
    },
  })
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return send
}

describe('the lines read (lineGuard)', () => {
  it('a byte order mark before the first message is dropped, not answered -32700', async () => {
    const refused: unknown[] = []
    const message = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    const input = Readable.from([Buffer.from(`\uFEFF${message}`), Buffer.from(message)])
    const lines: string[] = []
    for await (const line of lineGuard(input, (refusal) => refused.push(refusal)))
      lines.push((line as Buffer).toString('utf8'))
    expect(refused).toEqual([])
    expect(lines.join('')).toBe(`${message}${message}`)
  })
})

describe('the id of a message refused unread (topLevelId)', () => {
  it('is its top-level id, a string or a finite number, wherever it is written', () => {
    expect(topLevelId('{"jsonrpc":"2.0","id":12,"method":"ping"}')).toBe(12)
    expect(topLevelId('{"params":{"id":1,"a":[{"id":2}]}, "id" : "a\\"b" }')).toBe('a"b')
    expect(topLevelId('{"params":{"id":1},"method":"ping"}')).toBeNull()
    expect(topLevelId('{"id":{"n":1}}')).toBeNull()
    expect(topLevelId('{"id":1e999}')).toBeNull()
    expect(topLevelId('{"x":"\\"id\\":5","id":-3.5}')).toBe(-3.5)
    expect(topLevelId('{"id" "id":7')).toBe(7)
    expect(topLevelId('[{"id":1}]')).toBeNull()
  })
})

describe('a tools/call or resources/read whose params are of the wrong type (lineProblem)', () => {
  /** What lineProblem says of a message of `method` with these params, sent with id 4. */
  const sent = (method: string) => (params: unknown) =>
    lineProblem(JSON.stringify({ jsonrpc: '2.0', id: 4, method, params }))
  /** -32602 to id 4, naming `params.<field>` and what it got. */
  const wrong = (field: string, got: string) => ({
    id: 4,
    code: -32602,
    message: expect.stringMatching(
      new RegExp(`^Invalid params: params\\.${field}: must be .*, got ${got}$`),
    ),
  })

  it('is -32602 naming the param and what it got, answered to its id; a well-formed one passes', () => {
    const call = sent('tools/call')
    expect(call({ name: 'call_api', arguments: 'GET /users' })).toEqual(
      wrong('arguments', 'string'),
    )
    expect(call({ name: 'call_api', arguments: [1, 2] })).toEqual(wrong('arguments', 'a list'))
    expect(call({ name: 'call_api', arguments: null })).toEqual(wrong('arguments', 'null'))
    expect(call({ name: ['call_api'], arguments: {} })).toEqual(wrong('name', 'a list'))
    expect(call({ name: 'call_api', arguments: { method: 'GET', path: '/users' } })).toBeNull()
    expect(call({ name: 'reset' })).toBeNull()
  })

  it('so is a resources/read without a URI in a string, and one with it passes', () => {
    const read = sent('resources/read')
    expect(read({})).toEqual(wrong('uri', 'undefined'))
    expect(read({ uri: 42 })).toEqual(wrong('uri', 'number'))
    expect(read({ uri: 'shop-sandbox://openapi.json' })).toBeNull()
    expect(read({ uri: 'shop-sandbox://nothing' })).toBeNull()
  })
})

describe('shop-sandbox mcp --url, acting on a running server', () => {
  let server: SandboxServer
  beforeAll(async () => {
    server = await createSandboxServer({ port: 0, log: () => {} })
  })
  afterAll(() => server.close())

  it('sees what the developer’s app did, and what it does the app sees', async () => {
    const { call, stderr } = await agent('--url', server.url)
    expect(stderr()).toContain(`serving the sandbox server at ${server.url} over stdio`)
    // The app places an order over HTTP, not through the agent.
    const placed = await fetch(`${server.url}/users/2/orders`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-member-token', 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 3, quantity: 1 }] }),
    })
    expect(placed.status).toBe(201)
    const journal = await call('read_journal', { method: 'POST', path: '/users/{user_id}/orders' })
    expect(journal.structured.total).toBe(1)
    expect(journal.structured.list[0]).toMatchObject({ status: 201, path: '/users/2/orders' })

    // The agent makes the route fail for the app, then takes it away.
    const added = await call('add_override', {
      method: 'GET',
      path: '/products/{product_id}',
      times: 1,
      response: { status: 503 },
    })
    const read = () =>
      fetch(`${server.url}/products/3`, {
        headers: { authorization: 'Bearer sandbox-member-token' },
      })
    expect((await read()).status).toBe(503)
    expect((await read()).status).toBe(200)
    expect((await call('list_overrides')).structured.total).toBe(0)
    expect(added.structured.times).toBe(1)

    // Calls as the member and the admin, in a sandbox of the agent's own.
    const mine = await call('call_api', {
      method: 'GET',
      path: '/users/2',
      as: 'member',
      sandbox: 'agent',
    })
    expect(mine.structured).toMatchObject({
      status: 200,
      body: { data: { email: 'member@example.com' } },
    })
    await call('use_scenario', { name: 'empty', sandbox: 'agent' })
    const sandboxes = await fetch(`${server.url}/__sandbox/sandboxes`)
    expect(JSON.stringify(await sandboxes.json())).toContain('"agent"')
    expect((await call('list_scenarios')).structured.current).toBe('default')

    await call('set_settings', { strict: true })
    const unknown = await fetch(`${server.url}/products?colour=red`, {
      headers: { authorization: 'Bearer sandbox-member-token' },
    })
    expect(unknown.status).toBe(400)
    await call('reset')
    expect((await call('get_settings')).structured.strict).toBe(false)

    // A dropped connection (drop, or a 1xx with no final answer) is the result it is in process.
    for (const response of [{ drop: true }, { status: 103 }]) {
      await call('add_override', { path: '/products/4', times: 1, response })
      const dropped = await call('call_api', { method: 'GET', path: '/products/4' })
      expect([dropped.isError, dropped.structured.status]).toEqual([false, 0])
      expect(dropped.text).toMatch(/^no answer to GET \/products\/4: the connection was dropped/)
    }
  })

  it('call_api hands on each Set-Cookie of a proxied answer, as it came', async () => {
    const upstream = createServer((req, res) => {
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2'])
      res.setHeader('content-type', 'application/json')
      res.end('{"ok":true}')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const proxied = await createSandboxServer({
      port: 0,
      log: () => {},
      proxy: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    })
    try {
      const { call } = await agent('--url', proxied.url)
      const answer = await call('call_api', { method: 'GET', path: '/elsewhere' })
      expect(answer.structured.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2'])
      expect(answer.text).toContain('set-cookie: a=1; Path=/\nset-cookie: b=2')
    } finally {
      await proxied.close()
      upstream.close()
    }
  })

  it('answers an error result when the server is gone, and keeps serving', async () => {
    const gone = await createSandboxServer({ port: 0, log: () => {} })
    const url = gone.url
    await gone.close()
    const { call } = await agent('--url', url)
    const result = await call('get_settings')
    expect(result.isError).toBe(true)
    expect(result.text).toMatch(
      /^cannot reach the sandbox server at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    )
    expect((await call('call_api', { method: 'GET', path: '/users' })).isError).toBe(true)
  })

  it('says when the server has its control API off, blaming no field', async () => {
    const closed = await createSandboxServer({ port: 0, control: false, log: () => {} })
    try {
      const { call } = await agent('--url', closed.url)
      const result = await call('use_scenario', { name: 'empty' })
      expect(result.isError).toBe(true)
      // It said `name: no route for PUT /__sandbox/scenario`, as if the name were wrong.
      expect(result.text).toMatch(
        /^the sandbox server at http:\/\/127\.0\.0\.1:\d+ is not a shop-sandbox server, or not with its control API on \(PUT \/__sandbox\/scenario answered 404: /,
      )
    } finally {
      await closed.close()
    }
  })

  it('says when the URL is not a shop-sandbox server', async () => {
    const other = createServer((_request, response) => response.end('hello'))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    try {
      const { call, client } = await agent('--url', url)
      const result = await call('get_settings')
      expect(result.isError).toBe(true)
      expect(result.text).toBe(
        `the sandbox server at ${url} is not a shop-sandbox server, or not with its control API on (GET /__sandbox/config answered 200: hello)`,
      )
      // describe_api and the reference page read /openapi.json first: said the same way, not
      // in the JSON parser's words.
      const described = await call('describe_api')
      expect(described.isError).toBe(true)
      expect(described.text).toBe(
        `the sandbox server at ${url} is not a shop-sandbox server (GET /openapi.json answered 200 with no OpenAPI document: hello)`,
      )
      await expect(client.readResource({ uri: 'shop-sandbox://reference.md' })).rejects.toThrow(
        /is not a shop-sandbox server \(GET \/openapi\.json answered 200/,
      )
    } finally {
      other.close()
    }
  })
})
