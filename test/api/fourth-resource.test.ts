import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../../index.js'
import { createSandbox, openApiDocument } from '../../index.js'
import { unhandledOptions } from '../../sandbox/unhandled.js'
import type { Call } from '../support/client.js'
import { clientFor, MEMBER } from '../support/client.js'
import { conformanceTo } from '../support/conformance.js'
import { useSandboxServer } from '../support/over-http.js'

import { addresses, categories } from '../support/extra-resources.js'

const options: SandboxOptions = { resources: [categories, addresses], seed: 3 }
const conforms = conformanceTo(
  openApiDocument({ resources: [categories, addresses] }) as Record<string, never>,
)
const valid = { name: 'Garden', slug: 'garden', position: 5 }

/** The contract rows every resource follows (CONTRACT B1-B5), run against `categories`. */
function contractRows(call: () => Call) {
  it('lists a page with the envelope, and every list query rule', async () => {
    const page = await call()('GET', '/categories', { token: MEMBER })
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ code: 0, message: 'success' })
    expect(page.body.data).toMatchObject({ total: 12, page: 1, pageSize: 20 })
    expect(page.body.data.list.map((c: { id: number }) => c.id)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    )
    const sorted = await call()('GET', '/categories?sort=position&order=desc&pageSize=3')
    expect(sorted.body.data.list.map((c: { position: number }) => c.position)).toEqual([11, 10, 9])
    const filtered = await call()('GET', '/categories?status=inactive&fields=id,status')
    expect(filtered.body.data.total).toBe(3)
    for (const record of filtered.body.data.list)
      expect(Object.keys(record).sort()).toEqual(['id', 'status'])
    const found = await call()('GET', '/categories?keyword=CATEGORY-12')
    expect(found.body.data.list.map((c: { slug: string }) => c.slug)).toEqual(['category-12'])
    for (const [query, message] of [
      ['page=0', "page must be an integer 1 or more, got '0'"],
      ['pageSize=101', 'pageSize must be an integer from 1 to 100'],
      ['sort=colour', 'sort must be one of id, name, slug, position, createdAt, updatedAt'],
      ['order=up', 'order must be one of asc, desc'],
      ['status=gone', 'status must be one of active, inactive'],
      ['fields=id,colour', "unknown: 'colour'"],
      ['keyword=', 'keyword must be 1 to 100 characters, got 0'],
      ['page=1&page=2', 'page was given 2 times'],
    ]) {
      const bad = await call()('GET', `/categories?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.code, query).toBe(40000)
      expect(bad.body.message, query).toContain(message)
    }
  })

  it('creates (201, Location), reads, replaces, patches and deletes', async () => {
    const made = await call()('POST', '/categories', { body: valid })
    expect(made.status).toBe(201)
    expect(made.headers.get('location')).toBe('/categories/13')
    expect(made.body.data).toMatchObject({ id: 13, ...valid, status: 'active' })
    expect(made.body.data.createdAt).toBe(made.body.data.updatedAt)
    const read = await call()('GET', '/categories/13?fields=slug', { token: MEMBER })
    expect(read.body.data).toEqual({ slug: 'garden' })
    const same = await call()('PATCH', '/categories/13', { body: { position: 5 } })
    expect(same.body.data.updatedAt).toBe(made.body.data.updatedAt)
    const replaced = await call()('PUT', '/categories/13', {
      body: { name: 'Yard', slug: 'yard', status: 'inactive', position: 1 },
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.data).toMatchObject({ name: 'Yard', slug: 'yard', status: 'inactive' })
    const patched = await call()('PATCH', '/categories/13', { body: { position: 2 } })
    expect(patched.body.data).toMatchObject({ slug: 'yard', position: 2 })
    const gone = await call()('DELETE', '/categories/13', {
      headers: { prefer: 'return=representation' },
    })
    expect(gone.status).toBe(200)
    expect(gone.body.data).toMatchObject({ id: 13, slug: 'yard' })
    expect((await call()('GET', '/categories/13')).status).toBe(404)
    expect((await call()('DELETE', '/categories/12')).status).toBe(204)
  })

  it('answers each error with its status and code', async () => {
    const rows: Array<[string, string, Parameters<Call>[2], number, number]> = [
      ['GET', '/categories', { token: null }, 401, 40100],
      ['GET', '/categories', { token: 'nope' }, 401, 40101],
      ['POST', '/categories', { token: MEMBER, body: valid }, 403, 40300],
      ['DELETE', '/categories/1', { token: MEMBER }, 403, 40300],
      ['GET', '/categories/999', {}, 404, 40400],
      ['GET', '/categories/abc', {}, 400, 40000],
      ['PATCH', '/categories', {}, 405, 40500],
      ['POST', '/categories', { body: { ...valid, slug: 'category-1' } }, 409, 40910],
      ['PATCH', '/categories/2', { body: { slug: 'category-1' } }, 409, 40910],
      ['POST', '/categories', { body: { name: '', slug: 'X' } }, 422, 42200],
      ['PUT', '/categories/1', { body: { name: 'Only a name' } }, 422, 42200],
      [
        'POST',
        '/categories',
        { raw: '{"name":', headers: { 'content-type': 'application/json' } },
        400,
        40004,
      ],
      [
        'POST',
        '/categories',
        { raw: 'name=x', headers: { 'content-type': 'text/plain' } },
        415,
        41500,
      ],
      [
        'POST',
        '/categories',
        { raw: `"${'x'.repeat(1_100_000)}"`, headers: { 'content-type': 'application/json' } },
        413,
        41300,
      ],
    ]
    for (const [method, path, init, status, code] of rows) {
      const reply = await call()(method, path, init)
      expect([reply.status, reply.body?.code], `${method} ${path}`).toEqual([status, code])
    }
    const missing = await call()('GET', '/categories/999')
    expect(missing.body.message).toBe('category 999 not found')
    const taken = await call()('POST', '/categories', { body: { ...valid, slug: 'category-1' } })
    expect(taken.body.message).toBe("Slug already used: 'category-1'")
    const invalid = await call()('POST', '/categories', { body: { name: '', slug: 'X' } })
    expect(invalid.body.message).toContain('name: must be at least 1 character long')
    expect(invalid.body.message).toContain('slug: must match')
    expect(invalid.body.message).toContain('position: is required')
    const wrongMethod = await call()('PATCH', '/categories')
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST')
  })

  it('nests an owned resource under its user: members on their own, deleted with the user', async () => {
    const own = await call()('GET', '/users/2/addresses', { token: MEMBER })
    expect(own.status).toBe(200)
    expect(own.body.data.list.every((a: { userId: number }) => a.userId === 2)).toBe(true)
    expect((await call()('GET', '/users/1/addresses', { token: MEMBER })).status).toBe(403)
    const made = await call()('POST', '/users/2/addresses', {
      token: MEMBER,
      body: { city: 'Lisbon' },
    })
    expect(made.status).toBe(201)
    expect(made.headers.get('location')).toBe(`/users/2/addresses/${made.body.data.id}`)
    expect(made.body.data).toMatchObject({ userId: 2, city: 'Lisbon' })
    const notTheirs = await call()('GET', '/users/2/addresses/1')
    expect(notTheirs.status).toBe(404)
    expect((await call()('GET', '/addresses?userId=2')).body.data.total).toBe(3)
    expect((await call()('DELETE', '/users/2')).status).toBe(204)
    expect((await call()('GET', '/addresses?userId=2')).body.data.total).toBe(0)
  })

  it('is in the control API, the data document and the OpenAPI document', async () => {
    const info = await call()('GET', '/__sandbox', { token: null })
    expect(info.body.data.counts).toMatchObject({ users: 50, categories: 12, addresses: 4 })
    const db = await call()('GET', '/__sandbox/db', { token: null })
    expect(db.body.data.categories).toHaveLength(12)
    const duplicate = structuredClone(db.body.data)
    duplicate.categories[1].slug = duplicate.categories[0].slug
    const refused = await call()('PUT', '/__sandbox/db', { token: null, body: duplicate })
    expect(refused.status).toBe(422)
    expect(refused.body.message).toContain(
      "categories[1].slug: 'category-1' is already used by categories[0]",
    )
    const orphan = structuredClone(db.body.data)
    orphan.addresses[0].userId = 999
    const dangling = await call()('PUT', '/__sandbox/db', { token: null, body: orphan })
    expect(dangling.body.message).toContain('addresses[0].userId: user 999 does not exist')
    const document = await call()('GET', '/openapi.json', { token: null })
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/categories',
        '/categories/{category_id}',
        '/users/{user_id}/addresses',
      ]),
    )
    expect(document.body.components.schemas.Category.required).toContain('slug')
    expect(
      document.body.paths['/categories'].post.responses['409'].content['application/json'].examples,
    ).toHaveProperty('40910')
  })
}

describe('a 4th resource through MSW (setupServer)', () => {
  const base = 'https://api.shop.test'
  const sandbox = createSandbox({ ...options, baseUrl: base })
  const server = setupServer(...sandbox.handlers)
  beforeAll(() => server.listen(unhandledOptions('error')))
  afterEach(() => sandbox.reset())
  afterAll(() => server.close())
  const call = clientFor(base, conforms)
  contractRows(() => call)

  it('seeds the same bytes for the same seed, and leaves the shop data as it was', () => {
    const again = createSandbox(options)
    expect(JSON.stringify(again.snapshot())).toBe(JSON.stringify(sandbox.snapshot()))
    const shopOnly = createSandbox({ seed: 3 }).snapshot()
    expect(JSON.stringify(sandbox.snapshot().orders)).toBe(JSON.stringify(shopOnly.orders))
  })
})

describe('a definition naming a field its schema lacks', () => {
  it('is refused when the sandbox is created, naming the resource and the field', () => {
    for (const mistake of [
      { defaults: { colour: 'red' } },
      { adminOnly: ['colour'] },
      { links: [{ resource: 'users', field: 'ownerId' }] },
    ]) {
      const broken = { ...categories, name: 'tags', singular: 'tag', ...mistake } as never
      expect(() => createSandbox({ resources: [broken] })).toThrow(
        /^tags\.(defaults\.colour|adminOnly\[0\]|links\[0\]\.field): no field "(colour|ownerId)" in the schema of tags /,
      )
    }
  })
})

describe('a 4th resource over HTTP (createSandboxServer)', () => {
  const http = useSandboxServer(options)
  let call: Call
  beforeAll(() => {
    call = clientFor(http.server.url, conforms)
  })
  afterEach(() => call('DELETE', '/__sandbox', { token: null }))
  contractRows(() => call)
})
