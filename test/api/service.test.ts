import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createSandbox, defineResource, idSchema, readOnly, timestampSchema } from '../../index.js'

const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
const at = '2025-01-01T00:00:00.000Z'

/** Things that point at a parent thing: a tree, or whatever a client makes of it. */
const things = (count: number, parentOf: (index: number) => number | undefined) =>
  defineResource({
    name: 'things',
    singular: 'thing',
    schema: z.object({
      id: readOnly(idSchema),
      label: z.string(),
      parentId: z.int().positive().optional(),
      createdAt: readOnly(timestampSchema),
      updatedAt: readOnly(timestampSchema),
    }),
    links: [{ resource: 'things', field: 'parentId' }],
    list: { sortable: ['id'] },
    seed: {
      count,
      generate: ({ count: made }) =>
        Array.from({ length: made }, (_, index) => {
          const parentId = parentOf(index)
          return {
            label: `t${index + 1}`,
            createdAt: at,
            updatedAt: at,
            ...(parentId ? { parentId } : {}),
          }
        }),
    },
  })

/** A small shop with `things` beside it, and a way to call it as an admin. */
function withThings(count: number, parentOf: (index: number) => number | undefined) {
  const sandbox = createSandbox({
    users: 2,
    products: 1,
    orders: 0,
    resources: [things(count, parentOf)],
  })
  const call = (method: string, path: string, body?: unknown) =>
    sandbox.fetch(`http://sandbox.test${path}`, {
      method,
      headers: admin,
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
  return { sandbox, call }
}

describe('deleting a record deletes what points at it', () => {
  it('records that point at each other in a loop: DELETE removes the loop once, 204, never a 500', async () => {
    const { sandbox, call } = withThings(4, () => undefined)
    expect((await call('PATCH', '/things/1', { parentId: 2 })).status).toBe(200)
    expect((await call('PATCH', '/things/2', { parentId: 1 })).status).toBe(200)
    expect((await call('PATCH', '/things/3', { parentId: 3 })).status).toBe(200)
    expect((await call('DELETE', '/things/1')).status).toBe(204)
    expect(sandbox.db.things.all().map((thing) => thing.id)).toEqual([3, 4])
    expect((await call('DELETE', '/things/3')).status).toBe(204)
    expect(sandbox.db.things.all().map((thing) => thing.id)).toEqual([4])
  })

  it('a chain of 50,000 records, each pointing at the one before: deleting the first removes all', async () => {
    const { sandbox, call } = withThings(50_000, (index) => (index === 0 ? undefined : index))
    const response = await call('DELETE', '/things/1')
    expect(response.status).toBe(204)
    expect(sandbox.db.things.size).toBe(0)
  })

  it("a user's orders go with the user, and their stock goes back (each through its own rules)", async () => {
    const sandbox = createSandbox()
    const user = sandbox.db.orders.all().find((order) => order.status === 'pending')!.userId
    const theirs = sandbox.db.orders.all().filter((order) => order.userId === user)
    const stockBefore = sandbox.db.products.all().map((product) => product.stock)
    const response = await sandbox.fetch(`http://sandbox.test/users/${user}`, {
      method: 'DELETE',
      headers: admin,
    })
    expect(response.status).toBe(204)
    expect(theirs.length).toBeGreaterThan(0)
    expect(sandbox.db.orders.all().some((order) => order.userId === user)).toBe(false)
    const stockAfter = sandbox.db.products.all().map((product) => product.stock)
    expect(stockAfter.reduce((a, b) => a + b, 0)).toBeGreaterThan(
      stockBefore.reduce((a, b) => a + b, 0),
    )
  })
})

describe('a data document with links', () => {
  it('an optional link left out leads nowhere on purpose: GET /__sandbox/db loads back with PUT', async () => {
    const { call } = withThings(3, (index) => (index === 2 ? 1 : undefined))
    const document = (await (await call('GET', '/__sandbox/db')).json()).data
    expect(document.things[0]).not.toHaveProperty('parentId')
    const put = await call('PUT', '/__sandbox/db', JSON.stringify(document))
    expect(put.status).toBe(200)
    const broken = structuredClone(document)
    broken.things[0].parentId = 99
    const refused = await call('PUT', '/__sandbox/db', JSON.stringify(broken))
    expect(refused.status).toBe(422)
    expect((await refused.json()).message).toContain('things[0].parentId: thing 99 does not exist')
  })
})
