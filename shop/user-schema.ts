import * as z from 'zod'
import { activitySchema, idSchema, readOnly, timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'

export const userRoleSchema = z.enum(['admin', 'member'])

/** A user as stored and returned (CONTRACT B1). */
export const userSchema = documented(
  z.object({
    id: readOnly(idSchema),
    name: documented(z.string().trim().min(2).max(50), {
      description: 'The username: trimmed, 2-50 characters, unique case-insensitively.',
    }),
    email: documented(z.email().max(254), { description: 'Unique case-insensitively.' }),
    status: activitySchema,
    role: documented(userRoleSchema, { description: 'Only an admin may set or change it.' }),
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  }),
  { id: 'User' },
)

const writable = userSchema.pick({ name: true, email: true, status: true, role: true })

/** Body of `POST /users`: `status` defaults to `active`, `role` to `member`. */
export const userCreateSchema = documented(
  writable.extend({
    status: activitySchema.default('active'),
    role: userRoleSchema.default('member'),
  }),
  { id: 'UserCreate' },
)

/** Body of `PUT /users/{user_id}`: every writable field. */
export const userReplaceSchema = documented(writable, { id: 'UserReplace' })

/** Body of `PATCH /users/{user_id}`: any writable field. */
export const userPatchSchema = documented(writable.partial(), { id: 'UserPatch' })

export type User = z.infer<typeof userSchema>
export type UserRole = z.infer<typeof userRoleSchema>
