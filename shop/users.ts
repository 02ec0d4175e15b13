import type { Faker } from '@faker-js/faker'
import * as z from 'zod'
import {
  emailSchema,
  idSchema,
  readOnly,
  timestampSchema,
  trimmedText,
} from '../contract/fields.js'
import { activitySchema } from './fields.js'
import { documented, schemaRegistry } from '../contract/registry.js'
import { PROGRESS_STEP } from '../db/progress.js'
import type { SeedContext } from '../resources/define.js'
import { defineResource } from '../resources/define.js'
import { DAY, timelineOf, uniqueValue } from '../resources/seed.js'
import { fixedAccounts } from './accounts.js'
import { shopCodes } from './codes.js'

export const userRoleSchema = z.enum(['admin', 'member'])

/** A user as stored and returned (CONTRACT B1). */
export const userSchema = z
  .object({
    id: readOnly(idSchema),
    name: trimmedText(2, 50).register(schemaRegistry, {
      description:
        'The username: 2-50 characters once trimmed (leading and trailing white space is removed first), unique case-insensitively.',
    }),
    email: emailSchema()
      .max(254)
      .register(schemaRegistry, { description: 'Unique case-insensitively.' }),
    status: activitySchema,
    role: documented(userRoleSchema, { description: 'Only an admin may set or change it.' }),
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  })
  .register(schemaRegistry, { id: 'User' })

const writable = userSchema.pick({ name: true, email: true, status: true, role: true })

/** Body of `POST /users`: `status` defaults to `active`, `role` to `member`. */
export const userCreateSchema = writable
  .extend({
    status: userSchema.shape.status.default('active'),
    role: userSchema.shape.role.default('member'),
  })
  .register(schemaRegistry, { id: 'UserCreate' })

/** Body of `PUT /users/{user_id}`: every writable field. */
export const userReplaceSchema = documented(writable, { id: 'UserReplace' })

/** Body of `PATCH /users/{user_id}`: any writable field. */
export const userPatchSchema = writable.partial().register(schemaRegistry, { id: 'UserPatch' })

export type User = z.infer<typeof userSchema>
export type UserRole = z.infer<typeof userRoleSchema>

/**
 * Users 1 and 2 are the fixed accounts; the rest are made up, with unique names and e-mails.
 * Yielded one by one: a big data set is made with the event loop given back now and then.
 */
function* seedUsers({
  faker,
  count,
  reference,
  progress,
}: SeedContext): Generator<Omit<User, 'id'>, void> {
  const timeAt = timelineOf(faker, count, reference - 730 * DAY, reference - 90 * DAY)
  const names = new Set<string>()
  const emails = new Set<string>()
  for (let index = 0; index < count; index++) {
    if (index % PROGRESS_STEP === 0) progress(index)
    const time = timeAt(index)
    const fixed = fixedAccounts[index]
    if (fixed) {
      names.add(fixed.name)
      emails.add(fixed.email)
      const { id: _, ...account } = fixed
      yield { ...account, ...time }
      continue
    }
    // Its timestamps added to the new user itself (the same key order as a spread, one copy fewer).
    yield Object.assign(madeUpUser(faker, names, emails), time)
  }
}

function madeUpUser(faker: Faker, names: Set<string>, emails: Set<string>) {
  const firstName = faker.person.firstName()
  const lastName = faker.person.lastName()
  const username = faker.internet
    .username({ firstName, lastName })
    .replace(/[^A-Za-z0-9._-]/g, '')
    .slice(0, 40)
    .padEnd(2, '0')
  const name = uniqueValue(names, username, (n) => `${username}${n}`)
  const local = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z0-9.]/g, '')
  const domain = faker.helpers.arrayElement(['example.com', 'example.org', 'example.net'])
  const email = uniqueValue(emails, `${local}@${domain}`, (n) => `${local}${n}@${domain}`)
  return {
    name,
    email,
    status: faker.helpers.weightedArrayElement([
      { weight: 85, value: 'active' as const },
      { weight: 15, value: 'inactive' as const },
    ]),
    role: faker.helpers.weightedArrayElement([
      { weight: 95, value: 'member' as const },
      { weight: 5, value: 'admin' as const },
    ]),
  }
}

/** The accounts: members read and change only themselves, and never their role or status. */
export const users = defineResource({
  name: 'users',
  singular: 'user',
  schema: userSchema,
  bodies: { create: userCreateSchema, replace: userReplaceSchema, patch: userPatchSchema },
  unique: {
    name: { conflict: shopCodes.usernameTaken, ignoreCase: true },
    email: { conflict: shopCodes.emailTaken, ignoreCase: true },
  },
  list: {
    sortable: ['id', 'name', 'email', 'status', 'createdAt', 'updatedAt'],
    keyword: (user) => `${user.name}\u0000${user.email}`,
  },
  permissions: { read: 'own', replace: 'own', update: 'own' },
  adminOnly: ['role', 'status'],
  seed: { count: 50, min: 2, generate: seedUsers },
  docs: {
    operations: {
      replace: {
        description:
          'Every writable field is required (a member sends only name and email: they cannot write role or status).',
      },
      delete: { summary: "Delete a user and the user's orders" },
    },
  },
})
