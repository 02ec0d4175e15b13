import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../../index.js'
import { createSandbox } from '../../index.js'

const admin = { authorization: 'Bearer sandbox-admin-token' }

/** A sandbox of its own and a way to call it without any network. */
function sandboxWith(options: SandboxOptions = {}) {
  const sandbox = createSandbox({ users: 5, products: 3, orders: 4, ...options })
  async function call(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await sandbox.fetch(`http://sandbox.test${path}`, {
      method,
      headers: {
        ...admin,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : null }
  }
  return { sandbox, call }
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('CONTRACT C3: bounds in bytes as well as counts', () => {
  it('JSON nested deeper than 64 levels is refused 400 / 40004 before parsing, and the journal still reads', async () => {
    const { call } = sandboxWith()
    const deep = await call('POST', '/users', { body: `{"name":${nested(5000)}}` })
    expect(deep.status).toBe(400)
    expect(deep.body).toMatchObject({ code: 40004, data: null })
    expect(deep.body.message).toContain('nested deeper than 64')
    const fine = await call('POST', '/users', { body: `{"name":${nested(60)}}` })
    expect(fine.status).toBe(422)
    const journal = await call('GET', '/__sandbox/requests')
    expect(journal.status).toBe(200)
    expect(journal.body.data.list.at(-1).requestBody.name).toHaveLength(1)
  })

  it('the journal keeps a body up to journalBodyBytes, cut with a marker, and stays within journalBytes', async () => {
    const { sandbox, call } = sandboxWith({ journalBodyBytes: 1024, journalBytes: 64 * 1024 })
    const big = JSON.stringify({ email: 'x@example.com', password: 'p', pad: 'x'.repeat(900_000) })
    for (let i = 0; i < 40; i++)
      expect((await call('POST', '/sessions', { body: big })).status).toBe(401)
    const instance = sandbox.instance()
    expect(instance.journal.bytes).toBeLessThanOrEqual(64 * 1024)
    const [entry] = (await call('GET', '/__sandbox/requests?pageSize=1')).body.data.list
    expect(entry.requestBody).toMatch(
      /^\{"email":"x@example.com","password":"\[redacted\]","pad":"x+…\[cut: 9\d{5} characters in all\]$/,
    )
  })

  it('a body is kept as sent when nothing in it can be a secret, else redacted, however its key is spelt', async () => {
    const { call } = sandboxWith()
    const sent = [
      '{ "name" : "Ann Lee",\n  "email": "ann@example.com" }',
      '{"email":"x@example.com","pass\\u0077ord":"hunter2"}',
      '{"email":"x@example.com","\\u0070assword":"hunter2","name":"n"}',
      '{"name":"Token Holder","email":"t@example.com","apiToken":{"k":1}}',
      '{"name":"P","email":"p@example.com","pwd":"x","private_key":"k","otp":"123456","footprint":"kept"}',
    ]
    for (const body of sent) await call('POST', '/users', { body })
    const list = (await call('GET', '/__sandbox/requests')).body.data.list
    expect(list.map((entry: { requestBody: unknown }) => entry.requestBody)).toEqual([
      { name: 'Ann Lee', email: 'ann@example.com' },
      { email: 'x@example.com', password: '[redacted]' },
      { email: 'x@example.com', password: '[redacted]', name: 'n' },
      { name: 'Token Holder', email: 't@example.com', apiToken: '[redacted]' },
      {
        name: 'P',
        email: 'p@example.com',
        pwd: '[redacted]',
        private_key: '[redacted]',
        otp: '[redacted]',
        footprint: 'kept',
      },
    ])
    // A cut shows the text as it came, spaces and all.
    const small = sandboxWith({ journalBodyBytes: 16 })
    await small.call('POST', '/users', { body: sent[0] })
    const [entry] = (await small.call('GET', '/__sandbox/requests')).body.data.list
    expect(entry.requestBody).toBe(
      `${sent[0]!.slice(0, 16)}…[cut: ${sent[0]!.length} characters in all]`,
    )
  })

  it('what the journal keeps of a cut body is only the cut: big bodies in its entries hold no more memory than the cuts', async () => {
    // In a process of its own, so that its heap can be measured after a full collection.
    const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--expose-gc',
      '--input-type=module',
      '-e',
      `const { createSandbox } = await import(${JSON.stringify(dist)})
const sandbox = createSandbox({ users: 5, products: 3, orders: 4 })
const body = JSON.stringify({ name: 'n'.repeat(1_000_000), email: 'x@example.com' })
const send = () => sandbox.fetch('http://sandbox.test/users', { method: 'POST', headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }, body })
await send()
globalThis.gc()
const before = process.memoryUsage().heapUsed
for (let i = 0; i < 40; i++) if ((await send()).status !== 422) throw new Error('not 422')
globalThis.gc()
console.log(JSON.stringify({ grown: process.memoryUsage().heapUsed - before, kept: sandbox.requests().length }))`,
    ])
    const { grown, kept } = JSON.parse(stdout)
    expect(kept).toBe(41)
    // 40 bodies of 1 MB were sent; the journal keeps 40 cuts of 16 KB (when each kept its whole
    // body, the heap grew by 40 MB).
    expect(grown).toBeLessThan(8_000_000)
  })

  it('past journalSize the oldest requests go first; ids keep counting and the order stays oldest first', async () => {
    const { call } = sandboxWith({ journalSize: 3 })
    for (let id = 1; id <= 7; id++) await call('GET', `/users/${id}`)
    const { data } = (await call('GET', '/__sandbox/requests')).body
    expect(data.total).toBe(3)
    expect(data.list.map((entry: { id: number; path: string }) => [entry.id, entry.path])).toEqual([
      [5, '/users/5'],
      [6, '/users/6'],
      [7, '/users/7'],
    ])
    expect(data.list.map((entry: { status: number }) => entry.status)).toEqual([200, 404, 404])
    const filtered = (await call('GET', '/__sandbox/requests?status=404')).body.data
    expect(filtered.total).toBe(2)
  })

  it('a response body is shown redacted, and cut only after redaction, so no secret shows through a cut', async () => {
    const login = JSON.stringify({ email: 'admin@example.com', password: 'password' })
    for (const journalBodyBytes of [16 * 1024, 60]) {
      const { call } = sandboxWith({ journalBodyBytes })
      const { token } = (await call('POST', '/sessions', { body: login })).body.data
      const [entry] = (await call('GET', '/__sandbox/requests')).body.data.list
      expect(JSON.stringify(entry)).not.toContain(token.slice(0, 8))
      if (journalBodyBytes === 60) {
        expect(entry.responseBody).toMatch(
          /^\{"code":0,.*"token":"\[redacted\]",.*…\[cut: \d+ characters in all\]$/,
        )
      } else expect(entry.responseBody.data.token).toBe('[redacted]')
    }
  })

  it('journalSize 0 turns the journal off; journalBodyBytes 0 keeps no bodies', async () => {
    const off = sandboxWith({ journalSize: 0 })
    await off.call('GET', '/users/1')
    expect((await off.call('GET', '/__sandbox/requests')).body.data.total).toBe(0)
    const bodiless = sandboxWith({ journalBodyBytes: 0 })
    await bodiless.call('POST', '/users', {
      body: JSON.stringify({ name: 'n1', email: 'n1@example.com' }),
    })
    const [entry] = (await bodiless.call('GET', '/__sandbox/requests')).body.data.list
    expect(entry).not.toHaveProperty('requestBody')
    expect(entry.status).toBe(201)
  })

  it('past maxSessions, POST /sessions is refused 429 / 42900 and every live session keeps working', async () => {
    const { call } = sandboxWith({ maxSessions: 3 })
    const login = () =>
      call('POST', '/sessions', {
        body: JSON.stringify({ email: 'admin@example.com', password: 'password' }),
      })
    const tokens = []
    for (let i = 0; i < 3; i++) tokens.push((await login()).body.data.token)
    const refused = await login()
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 42900, data: null })
    expect(refused.body.message).toContain('--max-sessions')
    for (const token of tokens)
      expect(
        (await call('GET', '/users/1', { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200)
  })

  it('named sandboxes stay within sandboxesMemory: the least recently used are dropped, the data set stays whole', async () => {
    const { call } = sandboxWith({ sandboxesMemory: 4 * 1024 * 1024 })
    const document = (await call('GET', '/__sandbox/db')).body.data
    const users = Array.from({ length: 1500 }, (_, i) => ({
      ...document.users[0],
      id: i + 1,
      name: `user_${i}`,
      email: `user${i}@example.com`,
    }))
    const big = JSON.stringify({ ...document, users, orders: [] })
    for (let i = 0; i < 30; i++) {
      const put = await call('PUT', '/__sandbox/db', {
        body: big,
        headers: { 'x-sandbox-id': `s${i}` },
      })
      expect(put.status).toBe(200)
    }
    // The newest sandbox is whole; the oldest were dropped (a dropped one starts again from the seed).
    expect(
      (await call('GET', '/users?pageSize=1', { headers: { 'x-sandbox-id': 's29' } })).body.data
        .total,
    ).toBe(1500)
    expect(
      (await call('GET', '/users?pageSize=1', { headers: { 'x-sandbox-id': 's0' } })).body.data
        .total,
    ).toBe(5)
  })

  it('a PUT /__sandbox/db over maxDocumentBytes is refused 413 / 41300', async () => {
    const { call } = sandboxWith({ maxDocumentBytes: 2048 })
    const put = await call('PUT', '/__sandbox/db', {
      body: JSON.stringify({ users: [], products: [], orders: [], pad: 'x'.repeat(4000) }),
    })
    expect(put.status).toBe(413)
    expect(put.body).toMatchObject({ code: 41300, data: null })
  })

  it('ids beyond 2^31 − 1 are refused 422 naming the record; an exhausted sequence refuses creates, never repeats an id', async () => {
    const { call } = sandboxWith()
    const document = (await call('GET', '/__sandbox/db')).body.data
    const huge = {
      ...document,
      users: [
        ...document.users,
        { ...document.users[4], id: 2 ** 53 - 1, name: 'huge', email: 'huge@example.com' },
      ],
    }
    const refused = await call('PUT', '/__sandbox/db', { body: JSON.stringify(huge) })
    expect(refused.status).toBe(422)
    expect(refused.body.message).toMatch(/users\[5\]\.id/)
    const last = {
      ...document,
      users: [
        ...document.users,
        { ...document.users[4], id: 2 ** 31 - 1, name: 'last', email: 'last@example.com' },
      ],
    }
    expect((await call('PUT', '/__sandbox/db', { body: JSON.stringify(last) })).status).toBe(200)
    const create = () =>
      call('POST', '/users', { body: JSON.stringify({ name: 'next', email: 'next@example.com' }) })
    const first = await create()
    expect(first.status).toBe(422)
    expect(first.body.message).toContain('every id up to 2147483647 is used')
    expect((await call('GET', '/users/2147483647')).status).toBe(200)
  })
})
