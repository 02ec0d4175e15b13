import { describe, expect, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import type { Order, Product, User } from '../../index.js'
import {
  createSandbox,
  defineApi,
  defineScenario,
  defineResource,
  idSchema,
  readOnly,
  timestampSchema,
} from '../../index.js'
import { setupSandbox } from '../../node/index.js'

/**
 * What the types of a definition catch before anything runs (issue 31): these lines are checked
 * by `tsc` (npm run typecheck); each `@ts-expect-error` fails the check if the mistake compiles.
 */
const tagSchema = z.object({
  id: readOnly(idSchema),
  slug: z.string(),
  label: z.string(),
  position: z.int().default(0),
  createdAt: readOnly(timestampSchema),
  updatedAt: readOnly(timestampSchema),
})
type Tag = z.output<typeof tagSchema>

const seed = {
  count: 1,
  generate: () => [
    {
      slug: 'a',
      label: 'A',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    },
  ],
}

describe('a definition is typed by its schema', () => {
  it('field names are the schema’s: a typo does not compile', () => {
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      // @ts-expect-error: `lable` is no field of the schema
      list: { sortable: ['id', 'lable'] },
      seed,
    })
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      // @ts-expect-error: unique keys are fields of the schema
      unique: { slgu: { conflict: 'conflict' } },
      seed,
    })
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      // @ts-expect-error: admin-only fields are fields of the schema
      adminOnly: ['owner'],
      seed,
    })
  })

  it('defaults are a Partial of its input; the keyword and the rules see its records', () => {
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: {
        sortable: ['id'],
        keyword: (tag) => {
          expectTypeOf(tag).toEqualTypeOf<Tag>()
          return tag.label
        },
      },
      defaults: { label: 'Untitled' },
      seed,
    })
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      // @ts-expect-error: a default is of its field's type
      defaults: { position: 'first' },
      seed,
    })
  })

  it('a seeder returns the schema’s input, without ids', () => {
    defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      seed: {
        count: 1,
        // @ts-expect-error: `label` is required by the schema
        generate: () => [{ slug: 'a', createdAt: '', updatedAt: '' }],
      },
    })
  })

  it('a schema without an integer id does not compile', () => {
    defineResource({
      name: 'notes',
      singular: 'note',
      // @ts-expect-error: a resource's records need an integer id
      schema: z.object({ id: z.string(), text: z.string() }),
      list: { sortable: [] },
      seed: { count: 0, generate: () => [] },
    })
  })
})

describe('the data of a sandbox is typed exactly', () => {
  it("index names are the resource's own: findUnique and group take no other", () => {
    const sandbox = createSandbox()
    expectTypeOf(sandbox.db.users.findUnique('email', 'member@example.com')).toEqualTypeOf<
      User | undefined
    >()
    // @ts-expect-error: sku is a product's index, not a user's
    void sandbox.db.users.findUnique('sku', 'X-1')
    expectTypeOf(sandbox.db.products.findUnique('sku', 'X-1')).toEqualTypeOf<Product | undefined>()
    expectTypeOf(sandbox.db.orders.group('userId', 2)).toEqualTypeOf<number[]>()
    // @ts-expect-error: orders are grouped by their owner only
    void sandbox.db.orders.group('productId', 2)
    // @ts-expect-error: users belong to nothing
    void sandbox.db.users.group('userId', 2)
  })

  it('db.<name>.get() returns the record type, nothing looser', () => {
    const sandbox = createSandbox()
    expectTypeOf(sandbox.db.users.get(1)).toEqualTypeOf<User | undefined>()
    expectTypeOf(sandbox.db.products.get(1)).toEqualTypeOf<Product | undefined>()
    expectTypeOf(sandbox.db.orders.all()).toEqualTypeOf<readonly Order[]>()
    // @ts-expect-error: a typo of a field does not compile
    void sandbox.db.users.get(1)?.nmae
    // @ts-expect-error: no table of that name
    void sandbox.db.tags
  })

  it('resources of your own are typed on db too', () => {
    const tags = defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      seed,
    })
    const sandbox = createSandbox({ resources: [tags] })
    expectTypeOf(sandbox.db.tags.get(1)).toEqualTypeOf<Tag | undefined>()
    expectTypeOf(sandbox.db.users.get(1)).toEqualTypeOf<User | undefined>()
    expectTypeOf(sandbox.snapshot().nextIds.tags).toEqualTypeOf<number>()
  })

  it('the same with setupSandbox (shop-sandbox/node): resources of your own, or an API of your own', () => {
    const tags = defineResource({
      name: 'tags',
      singular: 'tag',
      schema: tagSchema,
      list: { sortable: ['id'] },
      seed,
    })
    // Checked by tsc only (never called: the API below is a sketch, not a valid one).
    void (() => {
      const withTags = setupSandbox({ resources: [tags] })
      expectTypeOf(withTags.db.tags.get(1)).toEqualTypeOf<Tag | undefined>()
      expectTypeOf(withTags.sandbox.db.tags.get(1)).toEqualTypeOf<Tag | undefined>()
      expectTypeOf(withTags.db.users.get(1)).toEqualTypeOf<User | undefined>()
      const own = setupSandbox({
        api: defineApi({
          title: 'Tags',
          resources: [tags],
          accounts: { resource: tags, login: 'slug', password: 'password' },
        }),
      })
      expectTypeOf(own.db.tags.get(1)).toEqualTypeOf<Tag | undefined>()
      // @ts-expect-error: an API of your own has no users unless it defines them
      void own.db.users
      const shop = setupSandbox()
      expectTypeOf(shop.db.users.get(1)).toEqualTypeOf<User | undefined>()
      // @ts-expect-error: no table of that name
      void shop.db.tags
    })
  })
})

describe('a scenario of the shop is typed with its tables', () => {
  it('defineScenario’s own example compiles under strict and does what it says', () => {
    const soldOut = defineScenario({
      name: 'sold-out',
      description: 'Every product out of stock',
      data: (db) => {
        expectTypeOf(db.products.get(1)).toEqualTypeOf<Product | undefined>()
        for (const product of db.products.all()) db.products.replace({ ...product, stock: 0 })
        // @ts-expect-error the shop has no such table
        void db.invoices
      },
    })
    const sandbox = createSandbox({ scenarios: [soldOut], scenario: 'sold-out' })
    expect(sandbox.db.products.all().map((product) => product.stock)).toEqual(
      sandbox.db.products.all().map(() => 0),
    )
    expect(sandbox.db.products.size).toBeGreaterThan(0)
  })
})
