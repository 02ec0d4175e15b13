import { createHash } from 'node:crypto'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox, defineScenario } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer, setupSandbox } from '../../node/index.js'
import type { Call } from '../support/client.js'
import { clientFor, MEMBER } from '../support/client.js'
import { assertConforms } from '../support/conformance.js'
import { ARRIVAL_WAIT_MS } from '../../state/instance.js'

// CONTRACT C5: named scenarios, the same in code (sandbox.fetch, no network) and over HTTP
// (the Node server). In the browser: test/e2e/scenarios-browser.test.ts.
const BUILT_IN = ['empty', 'out-of-stock', 'orders-in-every-status', 'big', 'slow', 'flaky']
const launchDay = defineScenario({
  name: 'launch-day',
  description: 'One product, a banner stub, a short delay',
  data: { seed: 3, counts: { users: 5, products: 1, orders: 0 } },
  overrides: [
    { method: 'GET', path: '/banner', response: { status: 200, data: { text: 'Launch!' } } },
  ],
  settings: { delay: 5 },
})

const inProcess = createSandbox({ baseUrl: 'https://api.shop.test', scenarios: [launchDay] })
let server: SandboxServer
beforeAll(async () => {
  server = await createSandboxServer({ port: 0, scenarios: [launchDay] })
})
afterAll(() => server.close())

const modes: [string, () => Call, () => void][] = [
  [
    'in code: sandbox.fetch',
    () => clientFor('https://api.shop.test', assertConforms, inProcess.fetch.bind(inProcess)),
    () => inProcess.reset(),
  ],
  ['over HTTP: the Node server', () => clientFor(server.url), () => server.sandbox.reset()],
]

const id = (name: string) => ({ 'x-sandbox-id': name })
const hash = (text: string) => createHash('sha256').update(text).digest('hex')

describe.each(modes)('scenarios %s', (_, client, reset) => {
  const call = (...args: Parameters<Call>) => client()(...args)

  it('GET /__sandbox/scenarios lists default, the built-ins and your own, with what each sets', async () => {
    reset()
    const { status, body } = await call('GET', '/__sandbox/scenarios?pageSize=100', { token: null })
    expect(status).toBe(200)
    const names = body.data.list.map((scenario: { name: string }) => scenario.name)
    expect(names).toEqual(['default', ...BUILT_IN, 'launch-day'])
    expect(body.data.total).toBe(8)
    for (const scenario of body.data.list) expect(scenario.description).toMatch(/\w/)
    const byName = Object.fromEntries(
      body.data.list.map((scenario: { name: string }) => [scenario.name, scenario]),
    )
    expect(byName.slow.sets).toEqual({
      data: null,
      overrides: 0,
      settings: { delay: { min: 800, max: 2000 } },
    })
    expect(byName.flaky.sets.settings).toEqual({ errorRate: 0.2, dropRate: 0.05 })
    expect(byName.big.sets.data).toBe('seed')
    expect(byName['launch-day'].sets).toEqual({
      data: 'seed',
      overrides: 1,
      settings: { delay: 5 },
    })
  })

  it('the built-ins set what they say', async () => {
    reset()
    const use = async (sandbox: string, name: string) => {
      const answer = await call('PUT', '/__sandbox/scenario', {
        token: null,
        headers: id(sandbox),
        body: { name },
      })
      expect(answer.status).toBe(200)
      expect(answer.body.data.scenario.name).toBe(name)
      return answer.body.data.counts
    }
    expect(await use('s-empty', 'empty')).toEqual({ users: 2, products: 0, orders: 0 })
    const users = await call('GET', '/users', { headers: id('s-empty') })
    expect(users.body.data.list.map((user: { id: number }) => user.id)).toEqual([1, 2])
    // The id sequences start after what is left: the first product made is product 1.
    const made = await call('POST', '/products', {
      headers: id('s-empty'),
      body: { name: 'First', sku: 'FIRST-1', price: 1, stock: 1 },
    })
    expect([made.status, made.body.data.id]).toEqual([201, 1])
    const db = await call('GET', '/__sandbox/db', { token: null, headers: id('s-empty') })
    expect(db.body.data.nextIds).toEqual({ users: 3, products: 2, orders: 1 })

    await use('s-stock', 'out-of-stock')
    const products = await call('GET', '/products?pageSize=100', { headers: id('s-stock') })
    expect(products.body.data.total).toBe(30)
    expect(products.body.data.list.every((p: { stock: number }) => p.stock === 0)).toBe(true)
    // Out of stock: an order is refused 409 / 40901.
    const order = await call('POST', '/users/2/orders', {
      token: MEMBER,
      headers: id('s-stock'),
      body: { items: [{ productId: products.body.data.list[0].id, quantity: 1 }] },
    })
    expect([order.status, order.body.code]).toEqual([409, 40901])

    await use('s-status', 'orders-in-every-status')
    const mine = await call('GET', '/users/2/orders?pageSize=100', {
      token: MEMBER,
      headers: id('s-status'),
    })
    expect(new Set(mine.body.data.list.map((o: { status: string }) => o.status))).toEqual(
      new Set(['pending', 'paid', 'shipped', 'delivered', 'cancelled']),
    )

    const started = performance.now()
    const counts = await use('s-big', 'big')
    expect(performance.now() - started).toBeLessThan(5000)
    expect(counts.users).toBeGreaterThanOrEqual(10_000)
    expect(counts.products).toBeGreaterThanOrEqual(1_000)
    expect(counts.orders).toBeGreaterThanOrEqual(20_000)

    await use('s-slow', 'slow')
    const config = await call('GET', '/__sandbox/config', { token: null, headers: id('s-slow') })
    expect(config.body.data.delay).toEqual({ min: 800, max: 2000 })
    const slowStart = performance.now()
    await call('GET', '/products/1', { headers: id('s-slow') })
    expect(performance.now() - slowStart).toBeGreaterThanOrEqual(780)

    await use('s-flaky', 'flaky')
    const flaky = await call('GET', '/__sandbox/config', { token: null, headers: id('s-flaky') })
    expect(flaky.body.data).toMatchObject({ errorRate: 0.2, dropRate: 0.05 })
  }, 30_000)

  it('a scenario of your own sets data, overrides and settings; a reset returns to it, not to default', async () => {
    reset()
    const sandbox = { headers: id('s-launch') }
    await call('PUT', '/__sandbox/scenario', {
      ...sandbox,
      token: null,
      body: { name: 'launch-day' },
    })
    const banner = await call('GET', '/banner', { ...sandbox, token: null, overridden: true })
    expect(banner.body).toEqual({ code: 0, message: 'success', data: { text: 'Launch!' } })
    await call('POST', '/products', {
      ...sandbox,
      body: { name: 'Extra', sku: 'EXTRA-1', price: 1, stock: 1 },
    })
    await call('PATCH', '/__sandbox/config', { ...sandbox, token: null, body: { delay: 0 } })
    await call('DELETE', '/__sandbox/overrides', { ...sandbox, token: null })
    const back = await call('POST', '/__sandbox/reset', { ...sandbox, token: null })
    expect(back.status).toBe(204)
    const info = await call('GET', '/__sandbox', { ...sandbox, token: null })
    expect(info.body.data).toMatchObject({
      scenario: 'launch-day',
      counts: { users: 5, products: 1, orders: 0 },
      config: { delay: 5 },
    })
    const again = await call('GET', '/banner', { ...sandbox, token: null, overridden: true })
    expect(again.status).toBe(200)
    // DELETE /__sandbox is the same full reset; DELETE /__sandbox/db the data only.
    await call('PUT', '/__sandbox/scenario', { ...sandbox, token: null, body: { name: 'empty' } })
    expect((await call('DELETE', '/__sandbox', { ...sandbox, token: null })).status).toBe(204)
    const counts = await call('GET', '/__sandbox', { ...sandbox, token: null })
    expect(counts.body.data.counts).toEqual({ users: 2, products: 0, orders: 0 })
  })

  it('an unknown name is 404 / 40400 naming the known ones, closest first; the sandbox stays as it was', async () => {
    reset()
    const sandbox = { headers: id('s-unknown'), token: null }
    await call('PUT', '/__sandbox/scenario', { ...sandbox, body: { name: 'empty' } })
    const wrong = await call('PUT', '/__sandbox/scenario', { ...sandbox, body: { name: 'emtpy' } })
    expect([wrong.status, wrong.body.code]).toEqual([404, 40400])
    expect(wrong.body.message).toMatch(
      /no scenario named 'emtpy'; known \(closest first\): empty, /,
    )
    // Names are lower case: one in capitals is nearest its own.
    const capitals = await call('PUT', '/__sandbox/scenario', {
      ...sandbox,
      body: { name: 'EMPTY' },
    })
    expect(capitals.body.message).toMatch(
      /no scenario named 'EMPTY'; known \(closest first\): empty, /,
    )
    // A method the route lacks names it as a client writes it.
    const posted = await call('POST', '/__sandbox/scenario', {
      ...sandbox,
      body: { name: 'empty' },
    })
    expect([posted.status, posted.body.message]).toEqual([
      405,
      'POST is not allowed on /__sandbox/scenario; allowed: GET, PUT',
    ])
    const info = await call('GET', '/__sandbox', sandbox)
    expect(info.body.data.scenario).toBe('empty')
    const none = await call('PUT', '/__sandbox/scenario', { ...sandbox, body: {} })
    expect([none.status, none.body.code]).toEqual([422, 42200])
    expect(none.body.message).toMatch(/name/)
    const viaHeader = await call('GET', '/users', {
      headers: { ...id('s-unknown-2'), 'x-sandbox-scenario': 'nope' },
    })
    expect([viaHeader.status, viaHeader.body.code]).toEqual([404, 40400])
    expect(viaHeader.body.message).toMatch(/known \(closest first\)/)
  })

  it('X-Sandbox-Scenario puts a new X-Sandbox-Id sandbox in a scenario; an existing one keeps its own', async () => {
    reset()
    const headers = { ...id('s-header'), 'x-sandbox-scenario': 'empty' }
    const products = await call('GET', '/products', { headers })
    expect(products.body.data.total).toBe(0)
    const info = await call('GET', '/__sandbox', { token: null, headers })
    expect(info.body.data.scenario).toBe('empty')
    await call('PUT', '/__sandbox/scenario', { token: null, headers, body: { name: 'default' } })
    const still = await call('GET', '/products', { headers })
    expect(still.body.data.total).toBe(30)
    // Another sandbox and the default one are untouched.
    expect((await call('GET', '/products')).body.data.total).toBe(30)
  })

  it('each journal entry names the scenario it was answered in', async () => {
    reset()
    const sandbox = { headers: id('s-journal') }
    await call('GET', '/products/1', sandbox)
    await call('PUT', '/__sandbox/scenario', {
      ...sandbox,
      token: null,
      body: { name: 'out-of-stock' },
    })
    await call('GET', '/products/1', sandbox)
    const journal = await call('GET', '/__sandbox/requests', { ...sandbox, token: null })
    expect(journal.body.data.list.map((entry: { scenario: string }) => entry.scenario)).toEqual([
      'default',
      'out-of-stock',
    ])
  })

  it('every scenario gives byte-identical data in every sandbox', async () => {
    reset()
    for (const name of ['default', ...BUILT_IN.filter((one) => one !== 'big'), 'launch-day']) {
      const texts: string[] = []
      for (const sandbox of [`det-${name}-a`, `det-${name}-b`]) {
        await call('PUT', '/__sandbox/scenario', {
          token: null,
          headers: id(sandbox),
          body: { name },
        })
        texts.push((await call('GET', '/__sandbox/db', { token: null, headers: id(sandbox) })).text)
      }
      expect(hash(texts[0]!), name).toBe(hash(texts[1]!))
    }
  })

  it('a scenario’s data may be what GET /__sandbox/db answered, saved as it came (envelope and all)', async () => {
    const source = { headers: id('s-backup'), token: null }
    await call('PUT', '/__sandbox/scenario', { ...source, body: { name: 'empty' } })
    const saved = (await call('GET', '/__sandbox/db', source)).body
    expect(saved).toMatchObject({ code: 0, message: 'success' })
    const sandbox = createSandbox({
      scenarios: [defineScenario({ name: 'saved', description: 'From a backup', data: saved })],
      scenario: 'saved',
    })
    expect(sandbox.db.users.all()).toEqual(saved.data.users)
    expect(sandbox.db.products.size).toBe(0)
  })
})

describe('scenarios in code', () => {
  it('the same scenario gives the same bytes in process and over HTTP', async () => {
    const over = clientFor(server.url)
    const code = clientFor('https://api.shop.test', assertConforms, inProcess.fetch.bind(inProcess))
    for (const name of ['orders-in-every-status', 'big']) {
      const texts: string[] = []
      for (const call of [over, code]) {
        await call('PUT', '/__sandbox/scenario', {
          token: null,
          headers: id(`bytes-${name}`),
          body: { name },
        })
        texts.push(
          (await call('GET', '/__sandbox/db', { token: null, headers: id(`bytes-${name}`) })).text,
        )
      }
      expect(hash(texts[0]!), name).toBe(hash(texts[1]!))
    }
  }, 30_000)

  it('createSandbox({ scenario }), useScenario and reset() in code; a name it lacks is refused naming the known ones', () => {
    const sandbox = createSandbox({ scenario: 'empty' })
    expect(sandbox.scenario).toBe('empty')
    expect(sandbox.db.products.size).toBe(0)
    sandbox.useScenario('out-of-stock')
    expect(sandbox.db.products.all().every((product) => product.stock === 0)).toBe(true)
    sandbox.db.users.delete(5)
    sandbox.reset()
    expect(sandbox.scenario).toBe('out-of-stock')
    expect(sandbox.db.users.get(5)).toBeDefined()
    expect(sandbox.db.products.all().every((product) => product.stock === 0)).toBe(true)
    expect(() => sandbox.useScenario('emty')).toThrow(
      /no scenario named 'emty'; known \(closest first\): empty/,
    )
    expect(() => createSandbox({ scenario: 'nope' })).toThrow(
      /Invalid sandbox options: scenario: no scenario named 'nope'/,
    )
    expect(sandbox.scenarios.map((scenario) => scenario.name)).toEqual(['default', ...BUILT_IN])
  })

  it('setupSandbox takes a scenario, and useScenario in a beforeEach', () => {
    const sandbox = setupSandbox({ scenario: 'orders-in-every-status' })
    expect(sandbox.scenario).toBe('orders-in-every-status')
    sandbox.useScenario('empty')
    expect(sandbox.db.users.size).toBe(2)
  })

  it('a scenario whose data break the API’s rules, or whose overrides or settings are invalid, is refused when the sandbox is made', () => {
    const cases: [unknown, RegExp][] = [
      [
        { name: 'x', description: 'd', settings: { errorRate: 3 } },
        /Invalid scenario 'x': settings\.errorRate: must be at most 1/,
      ],
      [
        { name: 'j', description: 'd', settings: { delay: { min: 1, max: 2, jitter: 500 } } },
        /Invalid scenario 'j': settings\.delay\.jitter: is not a known field/,
      ],
      [
        { name: 'y', description: 'd', overrides: [{ path: '/a', response: { status: 99 } }] },
        /Invalid scenario 'y': overrides\[0\]: response\.status/,
      ],
      [
        {
          name: 'z',
          description: 'd',
          data: (db: {
            table: (n: string) => { get(id: number): object; replace(r: object): void }
          }) => db.table('users').replace({ ...db.table('users').get(1), email: 'nope' }),
        },
        /Invalid scenario 'z': data: .*users\[0\]\.email/,
      ],
      [
        { name: 'w', description: 'd', data: { counts: { widgets: 3 } } },
        /Invalid scenario 'w': data\.counts\.widgets: no resource named widgets/,
      ],
      [
        { name: 'v', description: 'd', data: { users: [{ id: 1 }], products: [], orders: [] } },
        /Invalid scenario 'v': data: users\[0\]/,
      ],
      [
        {
          name: 'wide',
          description: 'd',
          settings: Object.fromEntries(Array.from({ length: 3000 }, (_, n) => [`k${n}`, n])),
        },
        // Fifty named, the rest counted (3,000 were one 60 kB line).
        /^Invalid scenario 'wide': settings\.k0: is not a known field; (?:settings\.k\d+: is not a known field; ){49}and 2950 more$/,
      ],
      [{ name: 'Bad Name', description: 'd' }, /Invalid scenario 'Bad Name': name: must be/],
      [{ name: 'u' }, /Invalid scenario 'u': description:/],
      [
        { name: 'typo', description: 'd', data: { seed: 3, counts: { users: 5 }, colour: 1 } },
        /^Invalid scenario 'typo': data\.colour: is not a seed option; data is seed options \(seed, counts\) or a document, not both$/,
      ],
      [
        {
          name: 'ghosts',
          description: 'd',
          data: { users: [], products: [], orders: [], ghosts: [{ id: 1 }] },
        },
        /^Invalid scenario 'ghosts': data: ghosts: is not a collection of this API \(users, products and orders\)$/,
      ],
      // Counted in the caller's own list, not after the built-in scenarios.
      [null, /^Invalid scenario scenarios\[0\]: must be a scenario definition/],
      ['empty', /^Invalid scenario scenarios\[0\]: must be a scenario definition/],
      [{ name: 42 }, /^Invalid scenario scenarios\[0\]: name: must be/],
      [
        {
          name: 'later',
          description: 'd',
          // Its changes after the await would go to a store no one reads.
          data: async (db: { table(name: string): { delete(id: number): void } }) => {
            await Promise.resolve()
            db.table('products').delete(1)
          },
        },
        /Invalid scenario 'later': data: the function returned a promise/,
      ],
      // What a data function throws is shown, whatever it is: null has no message to read.
      [
        {
          name: 'thrower',
          description: 'd',
          data: () => {
            throw null
          },
        },
        /^Invalid scenario 'thrower': data: the function threw null$/,
      ],
    ]
    for (const [scenario, message] of cases)
      expect(() => createSandbox({ scenarios: [scenario] as never })).toThrow(message)
  })
})

describe('switches and resets apply in the order they were asked for', () => {
  // A scenario whose data are made on first use, in slices (a few hundred ms), and one that is
  // ready at once: the slow switch, asked for first, used to apply last, over the fast one and
  // over a write acknowledged after it.
  // Made once per seed and counts (then kept): each test and mode has seeds of its own.
  const many = (seed: number) =>
    defineScenario({
      name: 'many',
      description: 'Many users, made on first use',
      data: { seed, counts: { users: 8000, products: 30, orders: 100 } },
    })
  /** The admin's headers in the sandbox `id`, and a switch of it to a scenario. */
  const inSandbox = (ask: typeof fetch, id: string) => {
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer sandbox-admin-token',
      'x-sandbox-id': id,
    }
    const use = (name: string) =>
      ask('/__sandbox/scenario', { method: 'PUT', headers, body: JSON.stringify({ name }) })
    return { headers, use }
  }
  const orderModes = (
    seed: number,
  ): Array<[string, () => Promise<{ fetch: typeof fetch; close(): unknown }>]> => [
    [
      'in code',
      async () => {
        const sandbox = createSandbox({ baseUrl: 'https://api.shop.test', scenarios: [many(seed)] })
        const ask: typeof fetch = (input, init) =>
          sandbox.fetch(`https://api.shop.test${String(input)}`, init)
        return { fetch: ask, close: () => undefined }
      },
    ],
    [
      'over HTTP',
      async () => {
        const server = await createSandboxServer({ port: 0, scenarios: [many(seed + 1)] })
        const ask: typeof fetch = (input, init) => fetch(`${server.url}${String(input)}`, init)
        return { fetch: ask, close: () => server.close() }
      },
    ],
  ]
  it.each(orderModes(424242))(
    '%s: a slow switch, then a fast one, then a write: the write is kept',
    async (_, open) => {
      const { fetch: ask, close } = await open()
      try {
        const { headers, use } = inSandbox(ask, 'in-order')
        const slow = use('many')
        const fast = await use('empty')
        expect(fast.status).toBe(200)
        expect((await fast.json()).data.scenario.name).toBe('empty')
        const created = await ask('/users', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'kept', email: 'kept@example.com' }),
        })
        expect(created.status).toBe(201)
        const { id } = (await created.json()).data
        expect((await slow).status).toBe(200)
        const info = (await (await ask('/__sandbox', { headers })).json()).data
        expect(info.scenario).toBe('empty')
        expect((await ask(`/users/${id}`, { headers })).status).toBe(200)
        // A reset asked for after a slow switch applies after it too.
        const slowAgain = use('many')
        const reset = await ask('/__sandbox/reset', { method: 'POST', headers })
        expect(reset.status).toBe(204)
        expect((await slowAgain).status).toBe(200)
        expect((await (await ask('/__sandbox', { headers })).json()).data.scenario).toBe('many')
      } finally {
        await close()
      }
    },
    30_000,
  )

  it.each(orderModes(434343))(
    '%s: a request sent while a switch is being made waits for it, and a write then is kept',
    async (_, open) => {
      const { fetch: ask, close } = await open()
      try {
        const { headers, use } = inSandbox(ask, 'sent-after')
        const slow = use('many')
        await new Promise((resolve) => setTimeout(resolve, 20))
        const created = await ask('/users', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'sent-after', email: 'sent-after@example.com' }),
        })
        expect(created.status).toBe(201)
        const { id } = (await created.json()).data
        // Made in the scenario's data (8,000 users), after the switch applied.
        expect(id).toBe(8001)
        expect((await slow).status).toBe(200)
        const read = await ask(`/users/${id}`, { headers })
        expect(read.status).toBe(200)
        expect((await read.json()).data.name).toBe('sent-after')
      } finally {
        await close()
      }
    },
    30_000,
  )

  it.each(orderModes(444444))(
    '%s: a write sent after two switches in line waits for both, and is kept',
    async (_, open) => {
      const { fetch: ask, close } = await open()
      try {
        const { headers, use } = inSandbox(ask, 'two-in-line')
        const slow = use('many')
        await new Promise((resolve) => setTimeout(resolve, 20))
        const fast = use('empty')
        await new Promise((resolve) => setTimeout(resolve, 20))
        // The second switch waited for the first before it took its place in line: this write,
        // sent after both, went between them, in `many`'s data (id 8001), then was replaced.
        const created = await ask('/users', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'after-both', email: 'after-both@example.com' }),
        })
        expect(created.status).toBe(201)
        const { id } = (await created.json()).data
        expect(id).toBe(3)
        expect([(await slow).status, (await fast).status]).toEqual([200, 200])
        expect((await (await ask('/__sandbox', { headers })).json()).data.scenario).toBe('empty')
        const read = await ask(`/users/${id}`, { headers })
        expect(read.status).toBe(200)
        expect((await read.json()).data.name).toBe('after-both')
      } finally {
        await close()
      }
    },
    30_000,
  )
})

describe('a request sent while a switch’s body is still arriving waits for it (at most a moment)', () => {
  let server: SandboxServer
  beforeAll(async () => {
    server = await createSandboxServer({ port: 0 })
  })
  afterAll(() => server.close())

  /**
   * A switch of the sandbox `id` to `empty` whose headers are sent now and its body after `ms`
   * (never, given null); resolves with the answer's status line.
   */
  function switchSentSlowly(
    id: string,
    ms: number | null,
  ): { status: Promise<string>; end(): void } {
    const body = JSON.stringify({ name: 'empty' })
    const socket = connect(server.port, '127.0.0.1')
    socket.on('error', () => undefined)
    socket.write(
      [
        'PUT /__sandbox/scenario HTTP/1.1',
        `Host: 127.0.0.1:${server.port}`,
        'Authorization: Bearer sandbox-admin-token',
        `X-Sandbox-Id: ${id}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    )
    if (ms !== null) setTimeout(() => socket.write(body), ms)
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    const status = new Promise<string>((resolve) =>
      socket.on('close', () => resolve(received.split('\r\n')[0]!)),
    )
    return { status, end: () => socket.destroy() }
  }
  const headers = (id: string) => ({
    'content-type': 'application/json',
    authorization: 'Bearer sandbox-admin-token',
    'x-sandbox-id': id,
  })

  it('a write sent after the switch’s headers, before its body, is made in the new scenario and kept', async () => {
    const sent = switchSentSlowly('arriving', 100)
    await new Promise((resolve) => setTimeout(resolve, 30))
    const created = await fetch(`${server.url}/users`, {
      method: 'POST',
      headers: headers('arriving'),
      body: JSON.stringify({ name: 'after-headers', email: 'after-headers@example.com' }),
    })
    expect(created.status).toBe(201)
    // `empty` has the two fixed accounts: the default data's next id would be 51.
    expect((await created.json()).data.id).toBe(3)
    expect(await sent.status).toBe('HTTP/1.1 200 OK')
    const read = await fetch(`${server.url}/users/3`, { headers: headers('arriving') })
    expect((await read.json()).data.name).toBe('after-headers')
  })

  it('a switch sent while another still reads its body applies after it: the last one sent wins', async () => {
    const sent = switchSentSlowly('two-arriving', 100)
    await new Promise((resolve) => setTimeout(resolve, 30))
    const later = await fetch(`${server.url}/__sandbox/scenario`, {
      method: 'PUT',
      headers: headers('two-arriving'),
      body: JSON.stringify({ name: 'out-of-stock' }),
    })
    expect(later.status).toBe(200)
    expect(await sent.status).toBe('HTTP/1.1 200 OK')
    // The first one's body came last: it applied last, over the switch sent after it.
    const info = await fetch(`${server.url}/__sandbox`, { headers: headers('two-arriving') })
    expect((await info.json()).data.scenario).toBe('out-of-stock')
  })

  it('a request waits for the switches that arrived before it, not for one arriving after it', async () => {
    const first = switchSentSlowly('arrived-after', 100)
    await new Promise((resolve) => setTimeout(resolve, 20))
    const started = performance.now()
    const list = fetch(`${server.url}/users`, { headers: headers('arrived-after') })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = switchSentSlowly('arrived-after', null)
    try {
      const answer = await list
      // Answered once the first switch took its place (its body ~80 ms later): in `empty`.
      expect((await answer.json()).data.total).toBe(2)
      expect(performance.now() - started).toBeLessThan(ARRIVAL_WAIT_MS - 50)
      expect(await first.status).toBe('HTTP/1.1 200 OK')
    } finally {
      second.end()
    }
  })

  it('a switch whose body never ends holds requests that far only: after it, they are answered at once', async () => {
    const sandbox = createSandbox({ baseUrl: 'https://api.shop.test' })
    // In code, a body that never ends (a stream nobody closes): its read waits for good.
    void sandbox.fetch('https://api.shop.test/__sandbox/scenario', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({ start: () => undefined }),
      duplex: 'half',
    } as RequestInit)
    await new Promise((resolve) => setTimeout(resolve, ARRIVAL_WAIT_MS + 50))
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      const read = await sandbox.fetch('https://api.shop.test/users/1', {
        headers: { authorization: 'Bearer sandbox-admin-token' },
      })
      expect(read.status).toBe(200)
      expect(performance.now() - started).toBeLessThan(ARRIVAL_WAIT_MS - 50)
    }
  })

  it('a switch whose body never comes holds the sandbox’s requests a moment, not until its timeout', async () => {
    const sent = switchSentSlowly('trickled', null)
    try {
      await new Promise((resolve) => setTimeout(resolve, 30))
      const started = performance.now()
      const list = await fetch(`${server.url}/users`, { headers: headers('trickled') })
      const waited = performance.now() - started
      expect(list.status).toBe(200)
      // Answered from the data it was sent in: the switch has not taken its place.
      expect((await list.json()).data.total).toBe(50)
      expect(waited).toBeGreaterThanOrEqual(ARRIVAL_WAIT_MS - 50)
      expect(waited).toBeLessThan(ARRIVAL_WAIT_MS + 1500)
      // Another sandbox does not wait at all.
      const other = await fetch(`${server.url}/users`, { headers: headers('elsewhere') })
      expect(other.status).toBe(200)
    } finally {
      sent.end()
    }
  })
})
