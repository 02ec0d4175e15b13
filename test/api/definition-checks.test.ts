import type { Faker } from '@faker-js/faker'
import { Session } from 'node:inspector/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import {
  createSandbox,
  defineApi,
  defineResource,
  idSchema,
  readOnly,
  shopApi,
  timestampSchema,
} from '../../index.js'

/**
 * A definition is user input: every misuse is refused when the sandbox is made, with a
 * TypeError naming the resource and the field (issue 31), never a 500 at request time.
 */
const tagSchema = z.object({
  id: readOnly(idSchema),
  slug: z.string().regex(/^[a-z0-9-]+$/),
  label: z.string().min(1),
  createdAt: readOnly(timestampSchema),
  updatedAt: readOnly(timestampSchema),
})

const at = new Date(Date.UTC(2025, 0, 1)).toISOString()
const tags = defineResource({
  name: 'tags',
  singular: 'tag',
  schema: tagSchema,
  unique: { slug: { conflict: { code: 40920, message: 'Tag slug taken' } } },
  list: { sortable: ['id', 'slug'] },
  permissions: { list: 'anyone', read: 'anyone' },
  seed: {
    count: 3,
    generate: ({ count }) =>
      Array.from({ length: count }, (_, index) => ({
        slug: `tag-${index}`,
        label: `Tag ${index}`,
        createdAt: at,
        updatedAt: at,
      })),
  },
})

/** A valid `tags` record, as a seeder returns it. */
const valid = (index: number) => ({ slug: `t-${index}`, label: 'x', createdAt: at, updatedAt: at })

/** `tags` with some fields replaced, past the types (as a JavaScript user would write it). */
const broken = (changes: Record<string, unknown>) => ({ ...tags, ...changes }) as never

describe('seeded records', () => {
  it('are plain objects, id first, whatever id the seeder wrote', async () => {
    const seeded = broken({
      seed: {
        count: 2,
        generate: ({ count }: { count: number }) =>
          Array.from({ length: count }, (_, index) => ({
            slug: `tag-${index}`,
            id: 99,
            label: `Tag ${index}`,
            createdAt: at,
            updatedAt: at,
          })),
      },
    })
    const sandbox = createSandbox({ resources: [seeded] }) as unknown as {
      db: { tags: { all(): object[] } }
    }
    const [first, second] = sandbox.db.tags.all()
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype)
    expect(first!.constructor).toBe(Object)
    expect(Object.keys(first!)).toEqual(['id', 'slug', 'label', 'createdAt', 'updatedAt'])
    expect(second).toStrictEqual({
      id: 2,
      slug: 'tag-1',
      label: 'Tag 1',
      createdAt: at,
      updatedAt: at,
    })
    expect(Object.isFrozen(second)).toBe(true)
    // What a debugger's preview calls it (V8 names an object by the function that made it), in
    // the built package as users get it (its minifier must not name the constructor).
    const built = (await import(
      fileURLToPath(new URL('../../dist/index.js', import.meta.url))
    )) as {
      createSandbox: (options: object) => { db: { tags: { all(): object[] } } }
    }
    const session = new Session()
    session.connect()
    ;(globalThis as { seededRecord?: object }).seededRecord = built
      .createSandbox({ resources: [seeded] })
      .db.tags.all()[0]
    const { result } = await session.post('Runtime.evaluate', { expression: 'seededRecord' })
    delete (globalThis as { seededRecord?: object }).seededRecord
    session.disconnect()
    expect(result.className).toBe('Object')
  })
})

describe('a seeded record with an own __proto__ key', () => {
  it('is refused as a field the schema lacks, its prototype untouched', () => {
    const seeded = broken({
      seed: {
        count: 1,
        generate: () => [
          JSON.parse(
            `{"slug":"tag-0","label":"Tag 0","createdAt":"${at}","updatedAt":"${at}","__proto__":{"admin":true}}`,
          ),
        ],
      },
    })
    expect(() => createSandbox({ resources: [seeded] })).toThrow(
      'tags.seed.generate: record 1: __proto__ is not a field of tags',
    )
  })
})

describe('definition-time checks: each misuse is a TypeError naming the resource and the field', () => {
  it.each([
    [
      'a conflict code name nobody defined',
      { unique: { slug: { conflict: 'slugTakenTypo' } } },
      "tags.unique.slug.conflict: no business code named 'slugTakenTypo'",
    ],
    [
      'a conflict code named like what every object has (it answered a duplicate 200)',
      { unique: { slug: { conflict: 'toString' } } },
      "tags.unique.slug.conflict: no business code named 'toString'",
    ],
    [
      'a unique key on a field the schema lacks',
      { unique: { nope: { conflict: 'conflict' } } },
      'tags.unique.nope: no field "nope" in the schema of tags',
    ],
    [
      'a sortable field the schema lacks',
      { list: { sortable: ['id', 'colour'] } },
      'tags.list.sortable[1]: no field "colour" in the schema of tags',
    ],
    [
      'a permission typo',
      { permissions: { list: 'everyone' } },
      'tags.permissions.list: must be admin, anyone or own, got "everyone"',
    ],
    [
      'an action that does not exist',
      { permissions: { browse: 'anyone' } },
      'tags.permissions.browse: is not an action',
    ],
    [
      'an id that is not an integer',
      { schema: tagSchema.extend({ id: z.string() }) },
      'tags.schema.id: must be an integer field',
    ],
    [
      'a schema that is not an object',
      { schema: z.string() },
      'tags.schema: must be a zod object schema',
    ],
    [
      'defaults that break the schema',
      { defaults: { label: '' } },
      'tags.defaults: label: must be at least 1 character long',
    ],
    [
      'a default of a read-only field',
      { defaults: { id: 5 } },
      'tags.defaults.id: id is read-only',
    ],
    [
      'a default of a field the schema lacks',
      { defaults: { colour: 'red' } },
      'tags.defaults.colour: no field "colour"',
    ],
    [
      'an admin-only field the schema lacks',
      { adminOnly: ['colour'] },
      'tags.adminOnly[0]: no field "colour"',
    ],
    [
      'a link to a resource that does not exist',
      { links: [{ resource: 'boards', field: 'slug' }] },
      'tags.links[0].resource: points at "boards", which is not a resource of this API',
    ],
    [
      'a nested own link that does not point at the accounts',
      {
        schema: tagSchema.extend({ productId: z.int().positive() }),
        links: [{ resource: 'products', field: 'productId', nested: 'own' }],
      },
      'tags.links[0].nested: own needs the link to point at the accounts (users)',
    ],
    [
      'a misplaced key',
      { sortable: ['id'] },
      'tags.sortable: is not part of a resource definition; did you mean list.sortable?',
    ],
    [
      'a keyword that is no function',
      { list: { sortable: ['id'], keyword: 'label' } },
      'tags.list.keyword: must be a function',
    ],
    [
      'a keyword returning something else than text',
      { list: { sortable: ['id'], keyword: (tag: { id: number }) => tag.id } },
      'tags.list.keyword: must return the text keyword searches (a string); it returned number for record 1',
    ],
    [
      'a field JSON cannot carry (a bigint)',
      { schema: tagSchema.extend({ weight: z.bigint().optional() }) },
      'tags.schema.weight: is a bigint, which JSON cannot carry (records are sent and kept as JSON); use z.int()',
    ],
    [
      'a Date deep in a field',
      { schema: tagSchema.extend({ meta: z.object({ at: z.array(z.date()) }).optional() }) },
      'tags.schema.meta.at[]: is a date, which JSON cannot carry',
    ],
    [
      'seeded records whose links lead nowhere',
      {
        schema: tagSchema.extend({ ownerId: z.int().optional() }),
        links: [{ resource: 'users', field: 'ownerId' }],
        seed: {
          count: 2,
          generate: () => [
            { slug: 'a', label: 'A', createdAt: at, updatedAt: at },
            { slug: 'b', label: 'B', ownerId: 99_999, createdAt: at, updatedAt: at },
          ],
        },
      },
      'tags.seed.generate: record 2: ownerId: user 99999 does not exist',
    ],
    [
      'a negative seed count',
      { seed: { ...tags.seed, count: -1 } },
      'tags.seed.count: must be an integer from 0 to 1000000, got -1',
    ],
    [
      'a seed that needs a missing resource',
      { seed: { ...tags.seed, needs: 'boards' } },
      'tags.seed.needs: "boards" is not a resource',
    ],
    [
      'an unknown rule',
      { rules: { validate: () => undefined } },
      'tags.rules.validate: is not a rule',
    ],
    [
      'an async rule (it would give a promise, not a record)',
      { rules: { create: async (record: object) => record } },
      'tags.rules.create: must not be async',
    ],
    [
      'a business error code out of range',
      { errors: { create: [{ code: 7, message: 'x' }] } },
      'tags.errors.create[0].code: must be an integer from 10000 to 99999',
    ],
    [
      "a code number that is another code's, with other words",
      { unique: { slug: { conflict: { code: 40001, message: 'Slug taken' } } } },
      "tags.unique.slug.conflict.code: 40001 is 'usernameTaken' ('Username already taken') already",
    ],
    [
      'own on a resource no path of which names an account',
      { permissions: { read: 'own' } },
      'tags.permissions.read: own lets a member reach their own users record; no path of tags names one',
    ],
    [
      "a singular another resource has (its path parameter and its operations' names)",
      { singular: 'user' },
      'tags.singular: users is called user already; each resource needs its own singular',
    ],
    [
      'a read-only field made admin-only',
      { adminOnly: ['id'] },
      'tags.adminOnly[0]: id is read-only: no one sets it, so it cannot be admin-only',
    ],
    [
      'a count given as text',
      { seed: { ...tags.seed, count: '3' } },
      'tags.seed.count: must be an integer from 0 to 1000000, got "3"',
    ],
    [
      'a refinement of the whole record schema (no body could be derived from it)',
      { schema: tagSchema.refine((tag) => tag.slug !== 'x') },
      'tags.schema: has a refinement of the whole object (.refine, .superRefine, .check)',
    ],
    [
      'a field that transforms (seeded and written records would differ)',
      { schema: tagSchema.extend({ code: z.string().transform((text) => text.length) }) },
      'tags.schema.code: is a transform',
    ],
    [
      'a field that coerces',
      { schema: tagSchema.extend({ rank: z.coerce.number() }) },
      'tags.schema.rank: is a coercion',
    ],
    [
      'a unique field holding objects',
      {
        schema: tagSchema.extend({ meta: z.object({ a: z.string() }) }),
        unique: { meta: { conflict: 'conflict' } },
      },
      'tags.unique.meta: a unique field must hold a string, a number or an enum value',
    ],
    [
      'ignoreCase that is not a boolean',
      { unique: { slug: { conflict: 'conflict', ignoreCase: 'yes' } } },
      'tags.unique.slug.ignoreCase: must be true or false, got "yes"',
    ],
    [
      'ignoreCase that JSON cannot write (a bigint): named by its kind, not a raw TypeError',
      { unique: { slug: { conflict: 'conflict', ignoreCase: 10n } } },
      'tags.unique.slug.ignoreCase: must be true or false, got bigint',
    ],
    [
      'a permission that holds itself: named, and the message stays short',
      (() => {
        const loop: Record<string, unknown> = { text: 'x'.repeat(500) }
        loop.self = loop
        return { permissions: { list: loop } }
      })(),
      'tags.permissions.list: must be admin, anyone or own, got object',
    ],
    ['adminOnly that is not a list', { adminOnly: 'label' }, 'tags.adminOnly: must be a list'],
    [
      'links that are not a list',
      { links: { resource: 'users', field: 'slug' } },
      'tags.links: must be a list',
    ],
    [
      'a link on the record’s own id',
      { links: [{ resource: 'users', field: 'id' }] },
      "tags.links[0].field: id is this record's own id",
    ],
    [
      'a link on a field that holds no ids',
      { links: [{ resource: 'users', field: 'slug' }] },
      'tags.links[0].field: slug must hold an id, an integer',
    ],
    [
      'a link with both a field and ids (one would be ignored)',
      { links: [{ resource: 'users', field: 'ownerId', ids: () => [] }] },
      'tags.links[0]: has both a field and ids(record): give one',
    ],
    [
      'a body that is not one (a typo)',
      { bodies: { crate: tagSchema.pick({ slug: true, label: true }) } },
      'tags.bodies.crate: is not a body; bodies are create, replace, patch or nestedCreate',
    ],
    [
      'a body field no record has, which no rule takes (it was dropped without a word)',
      { bodies: { patch: z.object({ colour: z.string() }) } },
      'tags.bodies.patch.colour: is no field of tags, and no rules.update takes it',
    ],
    [
      'a create body that leaves out a field every record needs',
      { bodies: { create: tagSchema.pick({ slug: true }) } },
      'tags.bodies.create: leaves out label, which every tag needs',
    ],
    [
      'a create body that makes a needed field optional',
      { bodies: { create: tagSchema.pick({ slug: true, label: true }).partial({ label: true }) } },
      'tags.bodies.create: makes label optional, which every tag needs',
    ],
    ['docs that are not words', { docs: 5 }, 'tags.docs: must be { description?, operations? }'],
    [
      'docs for an action that does not exist',
      { docs: { operations: { lst: { summary: 'x' } } } },
      'tags.docs.operations.lst: is not an action',
    ],
    [
      'a seed.max past the ceiling',
      { seed: { ...tags.seed, max: 1e15 } },
      'tags.seed.max: must be an integer from 0 to 1000000, got 1000000000000000',
    ],
    [
      'a seed count past the ceiling (it blamed a count option never given)',
      { seed: { ...tags.seed, count: 1e9 } },
      'tags.seed.count: must be an integer from 0 to 1000000, got 1000000000',
    ],
    [
      'a seed count outside its own min and max, or not a number',
      { seed: { ...tags.seed, min: 2, max: 5, count: 9 } },
      'tags.seed.count: must be an integer from 2 to 5, got 9',
    ],
    ['a NaN seed count', { seed: { ...tags.seed, count: NaN } }, 'got NaN'],
    [
      'a seed min past its max',
      { seed: { ...tags.seed, min: 6, max: 5 } },
      'tags.seed.min: must be an integer from 0 to 5, got 6',
    ],
    // Mistakes that surfaced as a bare error (a stack overflow, a TypeError of the engine's own).
    [
      'a seeder returning a list with holes',
      { seed: { count: 3, generate: () => new Array(3) } },
      'tags.seed.generate: record 1 must be an object',
    ],
    [
      'a seeder returning a list that throws when read',
      {
        seed: {
          count: 3,
          generate: () =>
            new Proxy([], {
              get() {
                throw new Error('proxy boom')
              },
            }),
        },
      },
      'tags.seed.generate: its records cannot be read: threw Error: proxy boom',
    ],
    [
      'a refinement that throws',
      {
        schema: tagSchema.extend({
          label: z.string().refine(() => {
            throw new Error('refine boom')
          }),
        }),
      },
      'tags.schema: checking record 1 threw Error: refine boom',
    ],
    [
      'an open field seeded 10,000 levels deep',
      {
        schema: tagSchema.extend({ extra: z.unknown() }),
        seed: {
          count: 1,
          generate: () => {
            let deep: unknown = 1
            for (let level = 0; level < 10_000; level++) deep = [deep]
            return [{ slug: 'deep', label: 'Deep', extra: deep, createdAt: at, updatedAt: at }]
          },
        },
      },
      'tags.seed.generate: record 1: extra: nests deeper than 64 levels',
    ],
    [
      'seed.needs given as a list',
      { seed: { ...tags.seed, needs: ['users'] } },
      'tags.seed.needs: must be a resource (its name, or its definition), got ["users"]',
    ],
  ])('%s', (_, changes, message) => {
    expect(() => createSandbox({ resources: [broken(changes)] })).toThrow(TypeError)
    expect(() => createSandbox({ resources: [broken(changes)] })).toThrow(message)
  })

  it.each(['seed', 'delay', 'port', 'api', 'resources'])(
    'a resource named %s (an option, whose value would be its count) is refused',
    (name) => {
      expect(() => createSandbox({ resources: [broken({ name })] })).toThrow(
        `${name}.name: ${name} is an option of the sandbox`,
      )
    },
  )

  it.each([
    ['help', '--help'],
    ['h', '-h'],
    ['version', '--version'],
    ['p', '-p'],
    ['q', '-q'],
    ['journal-size', '--journal-size'],
  ])(
    'a resource named %s (a flag of the command line: --help 3 printed the help, -p set the port) is refused',
    (name, flag) => {
      expect(() => createSandbox({ resources: [broken({ name })] })).toThrow(
        new RegExp(
          `^${name}\\.name: ${name} is (a flag the command line takes for itself \\(${flag}\\)|an option of the sandbox \\(${flag}\\))`,
        ),
      )
    },
  )

  it('a resource named like what every object has is refused', () => {
    expect(() => createSandbox({ resources: [broken({ name: 'constructor' })] })).toThrow(
      'resources[0].name: constructor is a name every JavaScript object has',
    )
  })

  it('a field named __proto__ is refused: it is every record’s prototype', () => {
    const schema = tagSchema.extend({ ['__proto__']: z.string().optional() })
    expect(() => createSandbox({ resources: [broken({ schema })] })).toThrow(
      'tags.schema.__proto__: is the prototype of every JavaScript object, not a field name',
    )
    // Nested, the same check and the same words, with its path.
    const nested = tagSchema.extend({
      meta: z.object({ ['__proto__']: z.string().optional() }).optional(),
    })
    expect(() => createSandbox({ resources: [broken({ schema: nested })] })).toThrow(
      'tags.schema.meta.__proto__: is the prototype of every JavaScript object, not a field name',
    )
  })

  it('a nested field named like what every object has is refused too, with its path', () => {
    const schema = tagSchema.extend({
      meta: z.object({ a: z.string(), valueOf: z.number().optional() }).optional(),
    })
    expect(() => createSandbox({ resources: [broken({ schema })] })).toThrow(
      "tags.schema.meta.valueOf: valueOf is a name every JavaScript object has; a record without it would read JavaScript's own; pick another name",
    )
  })

  it('seeders that need each other are refused, naming the chain; one needing its own records is not', () => {
    const labels = {
      ...tags,
      name: 'labels',
      singular: 'label',
      seed: { ...tags.seed, needs: 'notes' },
    }
    const notes = {
      ...tags,
      name: 'notes',
      singular: 'note',
      seed: { ...tags.seed, needs: 'tags' },
    }
    const looped = broken({ seed: { ...tags.seed, needs: 'labels' } })
    expect(() => createSandbox({ resources: [looped, labels as never, notes as never] })).toThrow(
      'tags.seed.needs: tags needs labels needs notes needs tags: seeders that need each other cannot run one after the other; drop one of the needs',
    )
    const own = broken({ seed: { ...tags.seed, needs: 'tags' } })
    expect(createSandbox({ resources: [own] }).db.table('tags').size).toBe(3)
  })

  it.each(['toString', 'valueOf', 'constructor', 'hasOwnProperty'])(
    'a field named %s (what every object has) is refused: a record leaving it out read JavaScript’s own',
    (key) => {
      const schema = tagSchema.extend({ [key]: z.string().optional() })
      expect(() => createSandbox({ resources: [broken({ schema })] })).toThrow(
        `tags.schema.${key}: ${key} is a name every JavaScript object has; a record without it would read JavaScript's own; pick another name`,
      )
    },
  )

  it.each(['sessions', 'docs'])(
    'a resource named %s (the sandbox’s own route) is refused',
    (name) => {
      expect(() => createSandbox({ resources: [broken({ name })] })).toThrow(
        `${name}.name: ${name} is the sandbox's own route (/${name}); pick another name`,
      )
    },
  )

  it('two resources of one name are refused, numbered as the resources option numbers them', () => {
    expect(() => createSandbox({ resources: [tags, tags] })).toThrow(
      'resources[1].name: tags is taken by another resource; pick another name',
    )
    expect(() => createSandbox({ resources: [broken({ name: 'users' })] })).toThrow(
      'resources[0].name: users is taken by a resource of the API; pick another name',
    )
    expect(() => createSandbox({ resources: [42 as never] })).toThrow(
      'resources[0]: must be a resource definition',
    )
    expect(() => createSandbox({ resources: [shopApi as never] })).toThrow(
      'resources[0]: must be a resource definition (defineResource({ … })); this is an API (defineApi): pass it as the api option',
    )
  })

  it('a seeder that throws is named; its faker has the whole English locale', () => {
    expect(() =>
      createSandbox({
        resources: [
          broken({
            seed: {
              count: 1,
              generate: () => {
                throw new Error('boom')
              },
            },
          }),
        ],
      }),
    ).toThrow('tags.seed.generate threw Error: boom')
    const people = createSandbox({
      resources: [
        broken({
          seed: {
            count: 2,
            generate: ({ faker, count }: { faker: Faker; count: number }) =>
              Array.from({ length: count }, (_, i) => ({
                slug: `t-${i}`,
                label: `${faker.person.fullName()} of ${faker.location.city()}, ${faker.lorem.word()}`,
                createdAt: at,
                updatedAt: at,
              })),
          },
        }),
      ],
    })
    expect(people.db.table<{ id: number; label: string }>('tags').get(1)?.label).toMatch(
      /^\S.+ of \S.*, \w+$/,
    )
  })

  it('seeders run after the resources they need or link to, whatever the order given', () => {
    const notes = defineResource({
      name: 'notes',
      singular: 'note',
      schema: z.object({
        id: readOnly(idSchema),
        tagId: z.int().positive(),
        createdAt: readOnly(timestampSchema),
        updatedAt: readOnly(timestampSchema),
      }),
      list: { sortable: ['id'] },
      links: [{ resource: 'tags', field: 'tagId' }],
      seed: {
        count: 2,
        needs: 'tags',
        generate: ({ count, data }) =>
          Array.from({ length: count }, () => ({
            tagId: data.tags!.at(-1)!.id,
            createdAt: at,
            updatedAt: at,
          })),
      },
    })
    const sandbox = createSandbox({ resources: [notes, tags] })
    expect(sandbox.db.table('notes').get(2)).toMatchObject({ tagId: 3 })
    // The data document keeps the order given.
    expect(Object.keys(sandbox.snapshot())).toEqual([
      'users',
      'products',
      'orders',
      'notes',
      'tags',
      'nextIds',
    ])
  })

  it('a seeder returning records that fail the schema, too few, or sharing a unique key', () => {
    const generate = (make: (index: number) => Record<string, unknown>) =>
      broken({
        seed: {
          count: 3,
          generate: ({ count }: { count: number }) =>
            Array.from({ length: count }, (_, i) => make(i)),
        },
      })
    expect(() =>
      createSandbox({ resources: [generate((i) => ({ ...valid(i), slug: 'Not A Slug' }))] }),
    ).toThrow('tags.seed.generate: record 1: slug: must match')
    expect(() =>
      createSandbox({ resources: [generate((i) => ({ ...valid(i), slug: 'same' }))] }),
    ).toThrow("tags.seed.generate: records 1 and 2 share slug 'same', which must be unique")
    expect(() =>
      createSandbox({ resources: [broken({ seed: { count: 3, generate: () => [valid(0)] } })] }),
    ).toThrow('tags.seed.generate: returned 1 records; 3 were asked for')
  })

  it('a seeder may yield its records (a generator function), checked the same way', async () => {
    const yielding = (make: (count: number) => Iterable<object>) =>
      broken({ seed: { count: 3, generate: ({ count }: { count: number }) => make(count) } })
    const sandbox = createSandbox({
      resources: [
        yielding(function* (count) {
          for (let index = 0; index < count; index++) yield valid(index)
        }),
      ],
    })
    const answer = await sandbox.fetch('/__sandbox/db', {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    const { data } = (await answer.json()) as { data: { tags: { id: number; slug: string }[] } }
    expect(data.tags.map(({ id, slug }) => [id, slug])).toEqual([
      [1, 't-0'],
      [2, 't-1'],
      [3, 't-2'],
    ])
    expect(() =>
      createSandbox({
        resources: [
          yielding(function* () {
            yield valid(0)
          }),
        ],
      }),
    ).toThrow('tags.seed.generate: yielded 1 records; 3 were asked for')
    expect(() =>
      createSandbox({
        resources: [
          yielding(function* () {
            for (let index = 0; ; index++) yield valid(index)
          }),
        ],
      }),
    ).toThrow('tags.seed.generate: yielded more than the 3 records asked for')
    expect(() =>
      createSandbox({
        resources: [
          yielding(function* () {
            yield valid(0)
            throw new Error('seedboom')
          }),
        ],
      }),
    ).toThrow('tags.seed.generate threw Error: seedboom')
    expect(() =>
      createSandbox({ resources: [yielding(() => 'abc' as unknown as Iterable<object>)] }),
    ).toThrow('tags.seed.generate: must return a list of records (or yield them)')
  })

  it("an onProgress that throws inside a seeder's progress call throws its own error, not the seeder's", () => {
    const onProgress = () => {
      throw new RangeError('barboom')
    }
    type Context = { count: number; progress: (done: number) => void }
    const seeders = [
      ({ count, progress }: Context) =>
        Array.from({ length: count }, (_, index) => (progress(index), valid(index))),
      function* ({ count, progress }: Context) {
        for (let index = 0; index < count; index++) {
          progress(index)
          yield valid(index)
        }
      },
    ]
    for (const generate of seeders) {
      let thrown: unknown
      try {
        createSandbox({ resources: [broken({ seed: { count: 3, generate } })], onProgress })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(RangeError)
      expect((thrown as Error).message).toBe('barboom')
    }
  })

  it('a seeder adding a key the schema lacks, or a value JSON cannot carry in an open field', () => {
    const seeded = (schema: z.ZodObject, make: (index: number) => object) =>
      broken({
        schema,
        seed: {
          count: 3,
          generate: ({ count }: { count: number }) =>
            Array.from({ length: count }, (_, i) => make(i)),
        },
      })
    expect(() =>
      createSandbox({ resources: [seeded(tagSchema, (i) => ({ ...valid(i), secret: 'x' }))] }),
    ).toThrow('tags.seed.generate: record 1: secret is not a field of tags')
    const open = tagSchema.extend({ meta: z.unknown() })
    expect(() =>
      createSandbox({
        resources: [seeded(open, (i) => ({ ...valid(i), meta: i === 2 ? 1n : i }))],
      }),
    ).toThrow('tags.seed.generate: record 3: meta: a bigint is not JSON')
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(() =>
      createSandbox({ resources: [seeded(open, (i) => ({ ...valid(i), meta: loop }))] }),
    ).toThrow('tags.seed.generate: record 1: meta: a cycle at .self is not JSON')
  })

  it('what a definition’s functions throw is named: keyword, ids', () => {
    expect(() =>
      createSandbox({
        resources: [
          broken({
            list: {
              sortable: ['id'],
              keyword: () => {
                throw new Error('kwboom')
              },
            },
          }),
        ],
      }),
    ).toThrow('tags.list.keyword: threw Error: kwboom for record 1')
    expect(() =>
      createSandbox({
        resources: [
          broken({
            links: [
              {
                resource: 'users',
                ids: () => {
                  throw new Error('idsboom')
                },
              },
            ],
          }),
        ],
      }),
    ).toThrow('(tags.links[0].ids) threw Error: idsboom')
    // What they give that is no answer is named as such, not as something they threw.
    expect(() =>
      createSandbox({ resources: [broken({ links: [{ resource: 'users', ids: () => 5 }] })] }),
    ).toThrow('(tags.links[0].ids) must give a list of [path, id] pairs, gave 5')
    expect(() =>
      createSandbox({ resources: [broken({ rules: { check: () => 42 as never } })] }),
    ).toThrow('(tags.rules.check) must give a problem in words, or nothing, gave 42')
    expect(() =>
      createSandbox({ resources: [broken({ rules: { check: () => 10n as never } })] }),
    ).toThrow('(tags.rules.check) must give a problem in words, or nothing, gave bigint')
  })

  it('counts of a resource that does not exist are refused', () => {
    expect(() => createSandbox({ counts: { ghosts: 3 } })).toThrow(
      'Invalid sandbox options: counts.ghosts: no resource named ghosts (resources: users, products, orders)',
    )
    // As JSON (a config file, MCP) gives it: an own __proto__, which the schema's copy drops.
    expect(() => createSandbox({ counts: JSON.parse('{"__proto__": 3}') })).toThrow(
      'Invalid sandbox options: counts.__proto__: no resource named __proto__ (resources: users, products, orders)',
    )
  })

  it('an API definition is checked too', () => {
    expect(() =>
      createSandbox({
        api: defineApi({ ...shopApi, accounts: { ...shopApi.accounts, login: 'name2' } }),
      }),
    ).toThrow('api.accounts.login: name2 must be a unique field of users')
    expect(() => createSandbox({ api: defineApi({ ...shopApi, title: '' }) })).toThrow(
      'api.title: must be a title in words',
    )
    expect(() =>
      createSandbox({
        api: defineApi({
          ...shopApi,
          codes: { conflict: { code: 40999, status: 409, message: 'x' } },
        }),
      }),
    ).toThrow("api.codes.conflict: 'conflict' is a generic code already")
    expect(() =>
      createSandbox({
        api: defineApi({
          ...shopApi,
          codes: JSON.parse('{"__proto__":{"code":40950,"status":409,"message":"x"}}'),
        }),
      }),
    ).toThrow(
      "api.codes.__proto__: '__proto__' is a name every JavaScript object has; pick another name",
    )
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ acounts: {} }, 'api.acounts: is not part of an API definition'],
      [
        { accounts: { ...shopApi.accounts, role: { field: 'role', admin: 'boss' } } },
        'api.accounts.role.admin: "boss" is not a value users.role can hold, so no account could be an admin',
      ],
      [
        {
          accounts: {
            ...shopApi.accounts,
            tokens: [
              { token: 'x', userId: 1 },
              { token: 'x', userId: 2 },
            ],
          },
        },
        'api.accounts.tokens[1].token: tokens[0] is "x" already',
      ],
      [
        { codes: { ...shopApi.codes, gone: { code: 40400, status: 404, message: 'gone' } } },
        "api.codes.gone.code: 40400 is 'notFound' ('resource not found') already; give that code's name, or another number",
      ],
      [
        {
          codes: {
            ...shopApi.codes,
            twin: { code: 40001, status: 409, message: 'a twin of usernameTaken' },
          },
        },
        "api.codes.twin.code: 40001 is 'usernameTaken' already",
      ],
    ]
    for (const [changes, message] of refused)
      expect(() => createSandbox({ api: { ...shopApi, ...changes } as never })).toThrow(message)
    // An account's role is an admin's to give: a member who may write their own account
    // must not be able to write it.
    const [users, ...others] = shopApi.resources
    expect(() =>
      createSandbox({
        api: defineApi({
          ...shopApi,
          resources: [{ ...users!, adminOnly: ['status'] }, ...others],
        }),
      }),
    ).toThrow(
      'users.adminOnly: must list role, the role that makes an account an admin: replace and update are not for admins only, so a member could make an account an admin',
    )
    expect(() =>
      createSandbox({ api: defineApi({ ...shopApi, resources: others as never }) }),
    ).toThrow('api.accounts.resource: users is not a resource of this API (products, orders)')
    expect(() =>
      createSandbox({
        api: defineApi({ ...shopApi, accounts: { ...shopApi.accounts, password: '' } }),
      }),
    ).toThrow('api.accounts.password: must be a password (a text, not empty)')
    expect(() =>
      createSandbox({
        api: {
          ...shopApi,
          accounts: { ...shopApi.accounts, tokens: [{ token: 'far', userId: 60 }] },
        },
        users: 10,
      }),
    ).toThrow(
      'api.accounts.tokens[0].userId: far stands for user 60, but 10 users are seeded; seed more or pick another account',
    )
  })

  it('a write pointing a link at a record that does not exist is 422, as a data document would be', async () => {
    const notes = defineResource({
      name: 'notes',
      singular: 'note',
      schema: z.object({
        id: readOnly(idSchema),
        tagId: z.int().positive(),
        createdAt: readOnly(timestampSchema),
        updatedAt: readOnly(timestampSchema),
      }),
      list: { sortable: ['id'] },
      links: [{ resource: 'tags', field: 'tagId' }],
      seed: { count: 0, generate: () => [] },
    })
    const sandbox = createSandbox({ resources: [tags, notes] })
    const post = (body: unknown) =>
      sandbox.fetch('/notes', {
        method: 'POST',
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      })
    const missing = await post({ tagId: 99 })
    expect(missing.status).toBe(422)
    expect(await missing.json()).toEqual({
      code: 42200,
      message: 'validation failed: tagId: tag 99 does not exist',
      data: null,
    })
    expect((await post({ tagId: 2 })).status).toBe(201)
    const patch = await sandbox.fetch('/notes/1', {
      method: 'PATCH',
      headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ tagId: 42 }),
    })
    expect(patch.status).toBe(422)
    // What the API answered, the data document takes back.
    const document = await (await sandbox.fetch('/__sandbox/db')).json()
    const put = await sandbox.fetch('/__sandbox/db', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(document.data),
    })
    expect(put.status).toBe(200)
  })
})

describe('what a definition may leave out, and what the sandbox owns', () => {
  const sandbox = createSandbox({ resources: [tags] })
  const call = (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    sandbox
      .fetch(path, {
        method,
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      })
      .then(async (response) => ({ status: response.status, body: await response.json() }))

  it('a resource without createdAt and updatedAt gets none on the records it creates or changes', async () => {
    const notes = defineResource({
      name: 'notes',
      singular: 'note',
      schema: z.object({ id: readOnly(idSchema), text: z.string() }),
      list: { sortable: ['id'] },
      permissions: { list: 'anyone', read: 'anyone' },
      seed: { count: 1, generate: () => [{ text: 'seeded' }] },
    })
    const plain = createSandbox({ resources: [notes] })
    const ask = (method: string, path: string, body?: unknown) =>
      plain
        .fetch(path, {
          method,
          headers: {
            authorization: 'Bearer sandbox-admin-token',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        .then(async (response) => ({ status: response.status, body: await response.json() }))
    const created = await ask('POST', '/notes', { text: 'new' })
    expect(created.status).toBe(201)
    expect(created.body.data).toEqual({ id: 2, text: 'new' })
    const changed = await ask('PATCH', '/notes/2', { text: 'changed' })
    expect(changed.body.data).toEqual({ id: 2, text: 'changed' })
    expect((await ask('GET', '/notes')).body.data.list).toEqual([
      { id: 1, text: 'seeded' },
      { id: 2, text: 'changed' },
    ])
  })

  it('without list.keyword, keyword is refused 400 (not a 500, not silently ignored)', async () => {
    const reply = await call('GET', '/tags?keyword=a')
    expect(reply).toEqual({
      status: 400,
      body: {
        code: 40000,
        message: 'keyword is not available here: this resource defines no text to search',
        data: null,
      },
    })
  })

  it('id, createdAt and updatedAt are read-only whatever the schema says; the sequence id wins', async () => {
    const first = await call('POST', '/tags', {
      body: { id: 5, slug: 'five', label: 'Five', createdAt: at },
    })
    const second = await call('POST', '/tags', { body: { id: 5, slug: 'six', label: 'Six' } })
    expect([first.status, second.status]).toEqual([201, 201])
    expect([first.body.data.id, second.body.data.id]).toEqual([4, 5])
    expect(first.body.data.createdAt).not.toBe(at)
  })

  it("Prefer: code=409 answers the resource's own conflict", async () => {
    const reply = await call('GET', '/tags/1', { headers: { prefer: 'code=409' } })
    expect(reply).toEqual({
      status: 409,
      body: { code: 40920, message: 'Tag slug taken (forced by Prefer: code=409)', data: null },
    })
    // The shop's products have theirs (40003), an order's rules theirs (40901).
    const products = await call('GET', '/products/1', { headers: { prefer: 'code=409' } })
    expect(products.body.code).toBe(40003)
    const orders = await call('GET', '/orders/1', { headers: { prefer: 'code=409' } })
    expect(orders.body.code).toBe(40901)
  })
})

describe('what bodies and rules of a definition give is a record as its schema takes it', () => {
  const headers = {
    authorization: 'Bearer sandbox-admin-token',
    'content-type': 'application/json',
  }
  const write = (
    sandbox: ReturnType<typeof createSandbox>,
    method: string,
    path: string,
    body: unknown,
  ) =>
    sandbox
      .fetch(path, { method, headers, body: JSON.stringify(body) })
      .then(async (response) => ({ status: response.status, body: await response.json() }))
  /** A tag the rules under test are given to create, and the answer a rule's mistake gets. */
  const newTag = { slug: 'two', label: 'Two', status: 'active' }
  const internalError = {
    status: 500,
    body: { code: 50000, message: 'internal server error', data: null },
  }
  const statusSchema = tagSchema.extend({ status: z.enum(['active', 'inactive']) })
  const withStatus = (changes: Record<string, unknown>) =>
    broken({
      schema: statusSchema,
      seed: {
        count: 1,
        generate: () => [
          { slug: 'one', label: 'One', status: 'active', createdAt: at, updatedAt: at },
        ],
      },
      ...changes,
    })

  it("a body of the definition's own gets the defaults", async () => {
    const sandbox = createSandbox({
      resources: [
        withStatus({
          bodies: {
            create: statusSchema
              .pick({ slug: true, label: true, status: true })
              .partial({ status: true }),
          },
          defaults: { status: 'inactive' },
        }),
      ],
    })
    const created = await write(sandbox, 'POST', '/tags', { slug: 'two', label: 'Two' })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ id: 2, slug: 'two', status: 'inactive' })
  })

  it('a rule giving a record the schema refuses is a 500 naming the rule, and nothing is stored', async () => {
    const errors: unknown[] = []
    const sandbox = createSandbox({
      onUnexpectedError: (error) => errors.push(error),
      resources: [
        withStatus({
          rules: {
            create: (input: Record<string, unknown>) => ({ ...input, status: 'bogus' }),
            update: () => undefined,
          },
        }),
      ],
    })
    const created = await write(sandbox, 'POST', '/tags', newTag)
    expect(created).toEqual(internalError)
    expect(String(errors[0])).toContain(
      'tags.rules.create gave a tag its schema refuses: status: must be one of',
    )
    const updated = await write(sandbox, 'PATCH', '/tags/1', { label: 'Uno' })
    expect(updated.status).toBe(500)
    expect(String(errors[1])).toContain('tags.rules.update gave a tag its schema refuses')
    expect(sandbox.db.table('tags').size).toBe(1)
    expect(sandbox.db.table('tags').get(1)).toMatchObject({ label: 'One', status: 'active' })
  })

  it('a rule throwing what is not an Error reaches onUnexpectedError as an Error naming the rule', async () => {
    const errors: unknown[] = []
    const sandbox = createSandbox({
      onUnexpectedError: (error) => errors.push(error),
      resources: [
        withStatus({
          rules: {
            create: () => {
              throw 'no stock'
            },
            update: () => {
              throw undefined
            },
          },
        }),
      ],
    })
    const created = await write(sandbox, 'POST', '/tags', newTag)
    expect(created).toEqual(internalError)
    expect(errors[0]).toBeInstanceOf(Error)
    expect((errors[0] as Error).message).toBe('tags.rules.create threw "no stock", not an Error')
    expect((errors[0] as Error).cause).toBe('no stock')
    expect((await write(sandbox, 'PATCH', '/tags/1', { label: 'Uno' })).status).toBe(500)
    expect((errors[1] as Error).message).toBe('tags.rules.update threw undefined, not an Error')
    expect(sandbox.db.table('tags').size).toBe(1)
  })

  it('a references rule that does not give a list is named, not split into letters', async () => {
    const errors: unknown[] = []
    const sandbox = createSandbox({
      onUnexpectedError: (error) => errors.push(error),
      resources: [withStatus({ rules: { references: () => 'bad' } })],
    })
    expect(
      (await write(sandbox, 'POST', '/tags', { slug: 'two', label: 'Two', status: 'active' }))
        .status,
    ).toBe(500)
    expect(String(errors[0])).toContain('tags.rules.references must return a list of problems')
  })

  it('unique keys: an empty field collides with no one, and 1 is not "1"', async () => {
    const coded = tagSchema.extend({
      code: z.string().optional(),
      rank: z.union([z.int(), z.string()]).optional(),
    })
    const sandbox = createSandbox({
      resources: [
        broken({
          schema: coded,
          unique: {
            slug: { conflict: 'conflict' },
            code: { conflict: 'conflict' },
            rank: { conflict: 'conflict' },
          },
          seed: {
            count: 2,
            generate: () => [
              { slug: 'one', label: 'One', createdAt: at, updatedAt: at },
              { slug: 'two', label: 'Two', code: 'A', rank: 1, createdAt: at, updatedAt: at },
            ],
          },
        }),
      ],
    })
    expect((await write(sandbox, 'POST', '/tags', { slug: 'three', label: 'Three' })).status).toBe(
      201,
    )
    expect(
      (
        await write(sandbox, 'POST', '/tags', {
          slug: 'four',
          label: 'Four',
          code: 'undefined',
          rank: '1',
        })
      ).status,
    ).toBe(201)
    const taken = await write(sandbox, 'POST', '/tags', { slug: 'five', label: 'Five', code: 'A' })
    expect(taken.status).toBe(409)
    expect(
      (await write(sandbox, 'POST', '/tags', { slug: 'six', label: 'Six', rank: 1 })).status,
    ).toBe(409)
  })
})
