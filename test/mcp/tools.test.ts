import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { inProcess } from '../../mcp/target.js'
import { SERVER_BUSY, serveMcp } from '../../mcp/server.js'
import { MAX_STRUCTURED, MAX_TEXT } from '../../mcp/tools.js'
import { callTool, contractTools } from './client.js'

/**
 * The MCP server in process (CONTRACT C6): the SDK's own client, linked to it in memory, calls
 * each tool the way an agent does and reads what the sandbox answered.
 */
const sandbox = createSandbox()
const client = new Client({ name: 'test-agent', version: '1.0.0' })
const call = (name: string, args?: Record<string, unknown>) => callTool(client, name, args)

beforeAll(async () => {
  const [server, agent] = InMemoryTransport.createLinkedPair()
  await serveMcp(inProcess(sandbox), { name: 'shop-sandbox', version: '0.0.0-test' }, server)
  await client.connect(agent)
})
afterAll(() => client.close())
beforeEach(() => {
  sandbox.useScenario('default')
  sandbox.reset()
})

describe('shop-sandbox mcp, in process', () => {
  it('lists the twelve tools of C6, each taking an optional sandbox, with JSON Schema inputs', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(contractTools)
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(20)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.inputSchema.properties).toHaveProperty('sandbox')
      expect(tool.inputSchema.required ?? []).not.toContain('sandbox')
    }
    const callApi = tools.find((tool) => tool.name === 'call_api')!.inputSchema
    expect(Object.keys(callApi.properties!)).toEqual(
      expect.arrayContaining(['method', 'path', 'query', 'body', 'as', 'token', 'headers']),
    )
    expect(callApi.required).toEqual(['method', 'path'])
    expect((callApi.properties!.as as { enum: string[] }).enum).toEqual([
      'admin',
      'member',
      'anonymous',
    ])
    // The override tool's input is POST /__sandbox/overrides' schema: its response status bounds.
    const override = tools.find((tool) => tool.name === 'add_override')!.inputSchema
    expect(JSON.stringify(override)).toContain('"maximum":599')
  })

  it('describe_api tells the resources and their fields, routes, codes, tokens and scenarios', async () => {
    const { isError, structured, text } = await call('describe_api')
    expect(isError).toBe(false)
    expect(structured.resources.map((resource: { name: string }) => resource.name)).toEqual([
      'users',
      'products',
      'orders',
    ])
    const users = structured.resources[0]
    expect(users.fields.email.type).toContain('string')
    expect(users.fields.id.readOnly).toBe(true)
    expect(users.query.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['page', 'pageSize', 'sort', 'fields']),
    )
    expect(structured.routes).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/users/{user_id}/orders' }),
    )
    expect(structured.codes).toContainEqual(expect.objectContaining({ code: 40100, status: 401 }))
    // Every code of CONTRACT B5, 405 / 40500 too (no operation of the OpenAPI document has it).
    const b5 = [40000, 40001, 40002, 40003, 40004, 40100, 40101, 40102, 40300, 40400, 40500]
    b5.push(40901, 40902, 41300, 41500, 42200, 42900, 50000, 50300)
    expect(structured.codes.map(({ code }: { code: number }) => code)).toEqual(
      expect.arrayContaining(b5),
    )
    expect(text).toContain('- 40500 (405): method not allowed')
    expect(structured.tokens.map((token: { token: string }) => token.token)).toEqual([
      'sandbox-admin-token',
      'sandbox-member-token',
    ])
    expect(structured.scenario).toBe('default')
    expect(structured.scenarios.map((one: { name: string }) => one.name)).toContain('out-of-stock')
    expect(text).toContain('## Business codes')
  })

  it('call_api answers the exact status, headers and body, as the admin, the member, nobody or a token', async () => {
    const admin = await call('call_api', { method: 'get', path: '/users/3' })
    expect(admin.isError).toBe(false)
    expect(admin.structured.status).toBe(200)
    expect(admin.structured.headers['content-type']).toContain('application/json')
    expect(admin.structured.body).toMatchObject({ code: 0, message: 'success', data: { id: 3 } })
    // The text says what the structured result does: status, headers, a blank line, the body.
    expect(admin.text).toMatch(/^200 for GET \/users\/3\n(?:[\w-]+: .*\n)+\n\{"code":0/)
    expect(admin.text).toContain('\ncontent-type: application/json; charset=utf-8\n')
    expect(admin.text).toMatch(/\nx-request-id: [\w-]+\n/)

    const member = await call('call_api', { method: 'GET', path: '/users/3', as: 'member' })
    expect(member.isError).toBe(false) // a 4xx is an answer, not a failed call
    expect(member.structured.status).toBe(403)
    expect(member.structured.body).toEqual({ code: 40300, message: expect.any(String), data: null })

    const anonymous = await call('call_api', { method: 'GET', path: '/products', as: 'anonymous' })
    expect(anonymous.structured.status).toBe(401)
    expect(anonymous.structured.headers['www-authenticate']).toBe('Bearer')
    expect(anonymous.text).toContain('\nwww-authenticate: Bearer\n')

    const session = await call('call_api', {
      method: 'POST',
      path: '/sessions',
      as: 'anonymous',
      body: { email: 'member@example.com', password: 'password' },
    })
    expect(session.structured.status).toBe(201)
    const token = session.structured.body.data.token as string
    const mine = await call('call_api', {
      method: 'POST',
      path: '/users/2/orders',
      token,
      body: { items: [{ productId: 1, quantity: 2 }] },
      headers: { 'X-Request-Id': 'agent-1' },
    })
    expect(mine.structured.status).toBe(201)
    expect(mine.structured.headers['x-request-id']).toBe('agent-1')
    expect(mine.structured.body.data).toMatchObject({ userId: 2, status: 'pending' })

    const page = await call('call_api', {
      method: 'GET',
      path: '/products',
      query: { pageSize: 2, sort: 'price', order: 'desc', fields: ['id', 'price'] },
    })
    expect(page.structured.status).toBe(200)
    expect(page.structured.body.data.list).toHaveLength(2)
    expect(Object.keys(page.structured.body.data.list[0])).toEqual(['id', 'price'])
  })

  it('get_data gives the document or one resource, and names a resource it lacks', async () => {
    const whole = await call('get_data')
    expect(Object.keys(whole.structured)).toEqual(['users', 'products', 'orders', 'nextIds'])
    expect(whole.structured.users).toHaveLength(sandbox.snapshot().users.length)
    const orders = await call('get_data', { resource: 'orders' })
    expect(Object.keys(orders.structured)).toEqual(['orders'])
    expect(JSON.parse(orders.text)).toEqual(sandbox.snapshot().orders)
    const missing = await call('get_data', { resource: 'carts' })
    expect(missing.isError).toBe(true)
    expect(missing.text).toBe(
      'resource: no resource named carts (resources: users, products, orders)',
    )
  })

  it('get_data shows a big data set in part, saying how much there is', async () => {
    expect((await call('use_scenario', { name: 'big' })).isError).toBe(false)
    const { structured, text } = await call('get_data')
    expect(structured.users).toHaveLength(100)
    expect(structured.cut).toContain('users: first 100 of 10000')
    expect(text.length).toBeLessThan(MAX_TEXT + 200)
    expect(text).toContain('page through the rest with call_api')
  })

  it('lists the scenarios, switches to one, and names a scenario it lacks', async () => {
    const listed = await call('list_scenarios')
    expect(listed.structured.current).toBe('default')
    expect(listed.structured.scenarios.map((one: { name: string }) => one.name)).toEqual(
      expect.arrayContaining(['default', 'empty', 'out-of-stock', 'slow', 'flaky']),
    )
    expect(listed.text).toMatch(/^\* default: /m)

    const used = await call('use_scenario', { name: 'out-of-stock' })
    expect(used.isError).toBe(false)
    const products = await call('call_api', { method: 'GET', path: '/products/1' })
    expect(products.structured.body.data.stock).toBe(0)
    expect((await call('list_scenarios')).structured.current).toBe('out-of-stock')

    const wrong = await call('use_scenario', { name: 'out-of-stok' })
    expect(wrong.isError).toBe(true)
    expect(wrong.text).toMatch(
      /^name: no scenario named 'out-of-stok'; known \(closest first\): out-of-stock,/,
    )
  })

  it('adds, lists and removes overrides; the journal shows the one that answered and a near miss', async () => {
    const added = await call('add_override', {
      method: 'GET',
      path: '/products/{product_id}',
      query: { preview: 'yes' },
      response: { status: 503, message: 'down for maintenance' },
    })
    expect(added.isError).toBe(false)
    const id = added.structured.id as number
    expect(added.structured).toMatchObject({ method: 'GET', path: '/products/{product_id}' })

    const hit = await call('call_api', {
      method: 'GET',
      path: '/products/4',
      query: { preview: 'yes' },
    })
    expect(hit.structured.status).toBe(503)
    expect(hit.structured.body).toEqual({
      code: 50300,
      message: 'down for maintenance',
      data: null,
    })
    const miss = await call('call_api', { method: 'GET', path: '/products/4' })
    expect(miss.structured.status).toBe(200)

    const journal = await call('read_journal', { path: '/products/{product_id}' })
    expect(journal.isError).toBe(false)
    const entries = journal.structured.list as Array<Record<string, unknown>>
    expect(entries.map((entry) => entry.status)).toEqual([503, 200])
    expect(entries[0]).toMatchObject({ overrideId: id })
    expect(entries[1]!.overrideId).toBeUndefined()

    // A dropped connection has no answer, and the text says so.
    await call('add_override', { path: '/products/5', times: 1, response: { drop: true } })
    const dropped = await call('call_api', { method: 'GET', path: '/products/5' })
    expect(dropped.isError).toBe(false)
    expect(dropped.structured.status).toBe(0)
    expect(dropped.text).toMatch(/^no answer to GET \/products\/5: the connection was dropped/)

    // A stub for a route the API lacks: a request that misses it is a 404 naming the near miss.
    const stub = await call('add_override', {
      method: 'GET',
      path: '/users/{user_id}/avatar',
      headers: { 'X-Client': 'ios' },
      response: { status: 200, data: { url: 'https://example.com/a.png' } },
    })
    const stubbed = await call('call_api', {
      method: 'GET',
      path: '/users/2/avatar',
      headers: { 'X-Client': 'ios' },
    })
    expect(stubbed.structured.body.data).toEqual({ url: 'https://example.com/a.png' })
    const missed = await call('call_api', { method: 'GET', path: '/users/2/avatar' })
    expect(missed.structured.status).toBe(404)
    const misses = await call('read_journal', { status: 404 })
    expect(misses.structured.list).toEqual([
      expect.objectContaining({
        path: '/users/2/avatar',
        nearMiss: { overrideId: stub.structured.id, reason: 'headers.x-client' },
      }),
    ])
    expect((await call('remove_override', { id: stub.structured.id })).isError).toBe(false)

    // An answer of JSON nested deeper than a body may be (a proxied one, a stub's text) is
    // shown as its text, not parsed into what no writer of the result can walk.
    const deep = `${'['.repeat(60_000)}${']'.repeat(60_000)}`
    const deepStub = await call('add_override', {
      method: 'GET',
      path: '/deep',
      response: { status: 200, text: deep },
    })
    const deepAnswer = await call('call_api', { method: 'GET', path: '/deep' })
    expect(deepAnswer.isError).toBe(false)
    expect(deepAnswer.structured.body).toBe(deep)
    await call('remove_override', { id: deepStub.structured.id })

    const second = await call('add_override', {
      method: 'DELETE',
      path: '/users/9',
      responses: [{ status: 500 }, { status: 204 }],
    })
    const listed = await call('list_overrides')
    expect(listed.structured.overrides.map((one: { id: number }) => one.id)).toEqual([
      id,
      second.structured.id,
    ])
    expect((await call('remove_override', { id })).text).toBe(`override ${id} removed`)
    expect((await call('list_overrides')).structured.total).toBe(1)
    const again = await call('remove_override', { id })
    expect(again.isError).toBe(true)
    expect(again.text).toMatch(/^id: /)
    expect((await call('remove_override', { id: 'all' })).isError).toBe(false)
    expect((await call('list_overrides')).structured.overrides).toEqual([])
  })

  it('reads and changes the settings, and resets all or the data only', async () => {
    const settings = await call('get_settings')
    expect(settings.structured).toMatchObject({ errorRate: 0, strict: false })
    const changed = await call('set_settings', { delay: '0-1', strict: true })
    expect(changed.isError).toBe(false)
    expect(changed.structured).toMatchObject({ delay: { min: 0, max: 1 }, strict: true })
    expect((await call('get_settings')).structured.strict).toBe(true)

    await call('call_api', { method: 'DELETE', path: '/orders/1' })
    expect((await call('call_api', { method: 'GET', path: '/orders/1' })).structured.status).toBe(
      404,
    )
    await call('reset', { what: 'data' })
    expect((await call('call_api', { method: 'GET', path: '/orders/1' })).structured.status).toBe(
      200,
    )
    expect((await call('get_settings')).structured.strict).toBe(true)
    expect((await call('reset')).text).toBe('sandbox back to its scenario')
    expect((await call('get_settings')).structured.strict).toBe(false)
    expect((await call('read_journal')).structured.total).toBe(0)
  })

  it('reads a journal and overrides holding bodies as deep as a body may be (62 levels)', async () => {
    let deep: unknown = 1
    for (let level = 0; level < 62; level++) deep = { a: deep }
    const created = await call('call_api', { method: 'POST', path: '/products', body: deep })
    expect(created.structured.status).toBe(422)
    const stored = await call('add_override', {
      path: '/deep',
      response: { status: 200, body: deep },
    })
    expect(stored.isError).toBe(false)
    const journal = await call('read_journal', { path: '/products' })
    expect(journal.isError).toBe(false)
    expect(journal.structured.list).toEqual([expect.objectContaining({ requestBody: deep })])
    const listed = await call('list_overrides')
    expect(listed.isError).toBe(false)
    expect(listed.structured.total).toBe(1)
    await call('reset')
  })

  it("lists every override, past the control API's page of 100", async () => {
    for (let i = 1; i <= 130; i++)
      await call('add_override', { path: `/stub/${i}`, response: { status: 204 } })
    const listed = await call('list_overrides')
    expect(listed.structured.total).toBe(130)
    const paths = (listed.structured.overrides as Array<{ path: string }>).map(({ path }) => path)
    expect(paths).toEqual(Array.from({ length: 130 }, (_, i) => `/stub/${i + 1}`))
    await call('reset')
  })

  it('acts on the sandbox an X-Sandbox-Id names, leaving the default one alone', async () => {
    const created = await call('call_api', {
      method: 'POST',
      path: '/users',
      sandbox: 'agent-a',
      body: { name: 'Ada Agent', email: 'ada@example.com' },
    })
    expect(created.structured.status).toBe(201)
    const users = async (sandboxId?: string) =>
      (await call('get_data', { resource: 'users', ...(sandboxId ? { sandbox: sandboxId } : {}) }))
        .structured.users as Array<{ email: string }>
    expect((await users('agent-a')).map((user) => user.email)).toContain('ada@example.com')
    expect((await users()).map((user) => user.email)).not.toContain('ada@example.com')
    await call('use_scenario', { name: 'empty', sandbox: 'agent-a' })
    expect((await call('list_scenarios', { sandbox: 'agent-a' })).structured.current).toBe('empty')
    expect((await call('list_scenarios')).structured.current).toBe('default')
  })

  it('answers bad input with an error result naming the field, in the contract’s words', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['call_api', { method: 5, path: '/users' }, 'method: must be a string'],
      ['call_api', { method: 'TRACE', path: '/users' }, 'method: must be one of GET, HEAD, POST'],
      ['call_api', { method: 'GET', path: 'users' }, 'path: must be a path starting with /'],
      ['call_api', { method: 'GET', path: '/users', as: 'root' }, 'as: must be one of'],
      ['call_api', { method: 'GET', path: '/users', sandbox: 'no spaces' }, 'sandbox: must be'],
      ['call_api', { method: 'GET', path: '/users', verb: 'x' }, 'verb'],
      [
        'call_api',
        { method: 'GET', path: '/users', headers: { 'bad name': 'x' } },
        'headers.bad name',
      ],
      ['call_api', { method: 'GET', path: '/__sandbox/db' }, 'path: is the control API'],
      ['call_api', { method: 'GET', path: '/users/%2E%2e/__sandbox' }, 'path: must not hold a .'],
      ['call_api', { method: 'GET', path: '//evil.test/users' }, 'path: must not start with //'],
      [
        'call_api',
        { method: 'PUT', path: '/users\\..\\__sandbox\\db', body: {} },
        'path: must not hold a backslash',
      ],
      ['call_api', { method: 'GET', path: '/users', body: {} }, 'body: a GET request has no body'],
      [
        'call_api',
        { method: 'GET', path: '/users', as: 'member', token: 'sandbox-admin-token' },
        'token: give as or token, not both',
      ],
      ['call_api', { method: 'GET', path: '/users', token: 'a b' }, 'token: must be a token'],
      [
        'call_api',
        { method: 'GET', path: '/users', headers: { Host: 'evil.test' } },
        'headers.Host: is set by the HTTP client itself',
      ],
      ['add_override', { method: 'GET', path: '/x', response: { status: 999 } }, 'response.status'],
      ['add_override', { method: 'GET' }, 'path: is required'],
      // Parsed from JSON, as an agent's arguments are: zod's records drop such a key, and the
      // override then matched every request (a 503 for every product).
      [
        'add_override',
        JSON.parse(
          '{"method":"GET","path":"/products/{product_id}","query":{"__proto__":"x"},"response":{"status":503}}',
        ),
        'query.__proto__: is not a name it can hold',
      ],
      [
        'call_api',
        JSON.parse('{"method":"GET","path":"/users","headers":{"__proto__":"x"}}'),
        'headers.__proto__: is not a name it can hold',
      ],
      [
        'call_api',
        {
          method: 'GET',
          path: '/users',
          query: Object.fromEntries(Array.from({ length: 51 }, (_, n) => [`q${n}`, 'v'])),
        },
        'query: must name at most 50 parameters (got 51)',
      ],
      [
        'call_api',
        {
          method: 'GET',
          path: '/users',
          headers: Object.fromEntries(Array.from({ length: 51 }, (_, n) => [`x-h${n}`, 'v'])),
        },
        'headers: must name at most 50 headers (got 51)',
      ],
      ['set_settings', { errorRate: 2 }, 'errorRate: must be at most 1'],
      [
        'set_settings',
        { delay: { min: 1, max: 2, jitter: 5 } },
        'delay.jitter: is not a known field',
      ],
      ['read_journal', { status: 'teapot' }, 'status'],
      // As over HTTP, in process too (50,000 characters gave an empty list here, a 400 there).
      ['read_journal', { path: `/${'a'.repeat(50_000)}` }, 'path: must be at most 2000 characters'],
      ['read_journal', { method: 'G'.repeat(3_000_000) }, 'method: must be a method name'],
      ['remove_override', { id: 'some' }, 'id: must be an override id'],
      ['reset', { what: 'everything' }, 'what'],
      ['get_data', { resource: 7 }, 'resource: must be a string'],
    ]
    for (const [tool, args, words] of cases) {
      const result = await call(tool, args)
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true)
      expect(result.text).toContain(words)
      expect(result.text.startsWith('Invalid input: ')).toBe(true)
    }
    // At most 50 problems named, as over HTTP (300,000 unknown fields made an 18 MB answer).
    const many = await call(
      'get_settings',
      Object.fromEntries(Array.from({ length: 200 }, (_, n) => [`field${n}`, n])),
    )
    expect(many.isError).toBe(true)
    expect(many.text).toContain('field49: is not a known field; and 150 more')
    expect(many.text).not.toContain('field50:')
    expect(many.structured.problems).toHaveLength(50)
    expect(many.structured.more).toBe(150)
    const unknown = await call('drop_database')
    expect(unknown.isError).toBe(true)
    expect(unknown.text).toContain('no tool named drop_database')
    // Still serving, and nothing changed.
    expect((await call('list_overrides')).structured.total).toBe(0)
  })

  it('sends the caller’s headers over its own, whatever their case', async () => {
    const asMember = await call('call_api', {
      method: 'GET',
      path: '/users/3',
      headers: { AUTHORIZATION: 'Bearer sandbox-member-token' },
    })
    expect(asMember.structured.status).toBe(403)
  })

  it('as picks the token of the role the scenario gave, whatever the account has become', async () => {
    const demoted = await call('call_api', {
      method: 'PATCH',
      path: '/users/1',
      body: { role: 'member' },
    })
    expect(demoted.structured.status).toBe(200)
    // The admin token's account is a member now: as admin, the API answers as it would the app.
    const admin = await call('call_api', { method: 'GET', path: '/users/3', as: 'admin' })
    expect(admin.structured.status).toBe(403)
    const member = await call('call_api', { method: 'GET', path: '/users/2', as: 'member' })
    expect(member.structured.status).toBe(200)
    const { structured } = await call('describe_api')
    expect(structured.tokens).toEqual([
      expect.objectContaining({ token: 'sandbox-admin-token', role: 'admin' }),
      expect.objectContaining({ token: 'sandbox-member-token', role: 'member' }),
    ])
  })

  it('refuses an input nested deeper than 64 levels before reading it', async () => {
    let body: unknown = 'deep'
    for (let level = 0; level < 5000; level++) body = [body]
    const deep = await call('call_api', { method: 'POST', path: '/users', body })
    expect(deep.isError).toBe(true)
    expect(deep.text).toBe('Invalid input: body: nests deeper than 64 levels')
    expect((await call('list_overrides')).isError).toBe(false)
  })

  it('keeps a result’s structured content bounded: a huge body is left out, the status stays', async () => {
    const huge = 'x'.repeat(3 * MAX_TEXT)
    await call('add_override', {
      method: 'GET',
      path: '/products/1',
      response: { status: 200, data: { huge } },
    })
    const answer = await call('call_api', { method: 'GET', path: '/products/1' })
    expect(answer.isError).toBe(false)
    expect(answer.structured.status).toBe(200)
    expect(answer.structured.headers['content-type']).toContain('application/json')
    expect(answer.structured.body).toBeUndefined()
    expect(answer.structured.cut).toMatch(/characters of structured content, more than \d+/)
    expect(JSON.stringify(answer.structured).length).toBeLessThan(MAX_STRUCTURED)
    expect(answer.text.length).toBeLessThan(MAX_TEXT + 200)
    expect(answer.text).toMatch(/^200 for GET \/products\/1\n(?:[\w-]+: .*\n)+\n\{"code":0/)
  })

  it('keeps C3’s bounds: an oversized body is the API’s 413, a huge answer is cut', async () => {
    const big = await call('call_api', {
      method: 'POST',
      path: '/users',
      body: { name: 'x'.repeat(2_000_000), email: 'big@example.com' },
    })
    expect(big.isError).toBe(false)
    expect(big.structured.status).toBe(413)
    expect(big.structured.body.code).toBe(41300)
    const tooLong = await call('call_api', { method: 'GET', path: `/${'a'.repeat(3000)}` })
    expect(tooLong.isError).toBe(true)
    expect(tooLong.text).toContain('path: ')
  })

  it('offers the OpenAPI document and the reference page as resources', async () => {
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toEqual([
      'shop-sandbox://openapi.json',
      'shop-sandbox://reference.md',
    ])
    // No templates, said as a list (it was "method not found", to a client of the capability).
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([])
    const openapi = await client.readResource({ uri: 'shop-sandbox://openapi.json' })
    const document = JSON.parse((openapi.contents[0] as { text: string }).text)
    expect(document.openapi).toMatch(/^3\.1/)
    expect(Object.keys(document.paths)).toContain('/users/{user_id}/orders')
    const reference = await client.readResource({ uri: 'shop-sandbox://reference.md' })
    expect((reference.contents[0] as { text: string }).text).toMatch(/^# .+ \(shop-sandbox\)/)
    // The MCP specification's "resource not found", -32002.
    await expect(client.readResource({ uri: 'shop-sandbox://secrets' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringMatching(/no resource shop-sandbox:\/\/secrets/),
    })
  })
})

describe('shop-sandbox mcp, in process, past the calls it runs and holds at once', () => {
  it('answers a call past 8 running and 64 waiting an error result, a resource read -32000, and the rest in full', async () => {
    const busy = new Client({ name: 'busy-agent', version: '1.0.0' })
    const [server, agent] = InMemoryTransport.createLinkedPair()
    await serveMcp(inProcess(createSandbox()), { name: 'shop-sandbox', version: '0' }, server)
    await busy.connect(agent)
    try {
      // 72 calls each held 300 ms by the sandbox's per-request delay fill every place.
      const slow = Array.from({ length: 72 }, () =>
        callTool(busy, 'call_api', {
          method: 'GET',
          path: '/users/1',
          headers: { 'X-Sandbox-Delay': '300' },
        }),
      )
      const refused = await callTool(busy, 'call_api', { method: 'GET', path: '/users/1' })
      expect(refused.isError).toBe(true)
      expect(refused.text).toBe(
        'too many calls at once (8 running, 64 waiting): wait for answers before sending more',
      )
      await expect(busy.readResource({ uri: 'shop-sandbox://openapi.json' })).rejects.toMatchObject(
        { code: SERVER_BUSY, message: expect.stringContaining('too many calls at once') },
      )
      for (const result of await Promise.all(slow)) {
        expect(result.isError).toBe(false)
        expect(result.structured.status).toBe(200)
      }
      // Once answered, the places are free again.
      const after = await busy.readResource({ uri: 'shop-sandbox://openapi.json' })
      expect(JSON.parse((after.contents[0] as { text: string }).text).openapi).toMatch(/^3\.1/)
    } finally {
      await busy.close()
    }
  })
})
