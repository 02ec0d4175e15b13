import { z } from 'zod'
import { activitySchema, idSchema, readOnly, timestampSchema } from './fields.js'

export const userRoleSchema = z.enum(['admin', 'member'])

/** A user as stored and returned (CONTRACT B1). */
export const userSchema = z
  .object({
    id: idSchema.meta(readOnly),
    name: z
      .string()
      .trim()
      .min(2)
      .max(50)
      .meta({ description: 'The username, unique case-insensitively.' }),
    email: z.email().max(254).meta({ description: 'Unique case-insensitively.' }),
    status: activitySchema,
    role: userRoleSchema.meta({ description: 'Only an admin may set or change it.' }),
    createdAt: timestampSchema.meta(readOnly),
    updatedAt: timestampSchema.meta(readOnly),
  })
  .meta({ id: 'User' })

const writable = userSchema.pick({ name: true, email: true, status: true, role: true })

/** Body of `POST /users`: `status` defaults to `active`, `role` to `member`. */
export const userCreateSchema = writable
  .extend({
    status: activitySchema.default('active'),
    role: userRoleSchema.default('member'),
  })
  .meta({ id: 'UserCreate' })

/** Body of `PUT /users/{user_id}`: every writable field. */
export const userReplaceSchema = writable.meta({ id: 'UserReplace' })

/** Body of `PATCH /users/{user_id}`: any writable field. */
export const userPatchSchema = writable.partial().meta({ id: 'UserPatch' })

export type User = z.infer<typeof userSchema>
export type UserRole = z.infer<typeof userRoleSchema>
