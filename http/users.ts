import { readOnlyFields } from '../contract/registry.js'
import { foldCase } from '../db/store.js'
import type { User } from '../shop/user-schema.js'
import {
  userCreateSchema,
  userPatchSchema,
  userReplaceSchema,
  userSchema,
} from '../shop/user-schema.js'
import { changesNothing } from '../db/same-record.js'
import { ApiError } from '../contract/api-error.js'
import { validateBody } from './body.js'
import { success } from '../contract/envelope.js'
import type { ListSpec } from '../resources/list.js'
import { parseListQuery, parseRecordQuery, runListQuery, selectFields } from '../resources/list.js'
import type { Operation, OperationContext } from './operation.js'
import { ownUser } from './operation.js'
import { removeOrder } from '../shop/order-rules.js'
import { created, deleted, pathRecord } from './responses.js'
import type { Route } from './router.js'

const fields = userSchema.keyof().options
const readOnly = readOnlyFields(userSchema)

export const userListSpec: ListSpec<User> = {
  fields,
  sortable: ['id', 'name', 'email', 'status', 'createdAt', 'updatedAt'],
  statuses: userSchema.shape.status.options,
  keywordText: (user) => `${user.name}\u0000${user.email}`,
}

/** The user in the path, or 404. */
export function pathUser(context: OperationContext): User {
  return pathRecord(context, context.instance.store.users, 'user')
}

/** 409 when another user already holds the name (40001) or the e-mail (40002). */
function assertUnique(
  context: OperationContext,
  candidate: Pick<User, 'name' | 'email'>,
  selfId?: number,
): void {
  const { users } = context.instance.store
  const byName = users.findUnique('name', foldCase(candidate.name))
  if (byName && byName.id !== selfId)
    throw ApiError.of('usernameTaken', `Username already taken: '${candidate.name}'`)
  const byEmail = users.findUnique('email', foldCase(candidate.email))
  if (byEmail && byEmail.id !== selfId)
    throw ApiError.of('emailTaken', `Email already registered: '${candidate.email}'`)
}

/** Only an admin may change `role` or `status` (CONTRACT B4): 403 for a member who tries. */
function assertMayChange(context: OperationContext, user: User, body: unknown): void {
  if (context.principal?.role === 'admin' || typeof body !== 'object' || body === null) return
  const changes = body as Record<string, unknown>
  for (const field of ['role', 'status'] as const) {
    if (field in changes && changes[field] !== user[field]) {
      throw ApiError.of('permissionDenied', `permission denied: only an admin may change ${field}`)
    }
  }
}

/** PUT and PATCH share everything but the schema. */
async function update(context: OperationContext, replace: boolean) {
  const body = await context.readJson()
  const user = pathUser(context)
  assertMayChange(context, user, body)
  const rules = { strict: context.strict, readOnly }
  const isAdmin = context.principal?.role === 'admin'
  const changes = replace
    ? // A member cannot write role or status, so a member's PUT needs only the fields they can write.
      validateBody(
        isAdmin ? userReplaceSchema : userPatchSchema.required({ name: true, email: true }),
        body,
        rules,
      )
    : validateBody(userPatchSchema, body, rules)
  if (changesNothing(user, changes)) return success(user)
  const next: User = { ...user, ...changes, updatedAt: context.now() }
  assertUnique(context, next, user.id)
  return success(context.instance.store.users.replace(next))
}

const listUsers: Operation = {
  docs: {
    operationId: 'listUsers',
    summary: 'List users',
    tags: ['users'],
    success: { status: 200, data: userSchema, list: true },
    query: 'list',
    listSpec: userListSpec,
    errors: [],
  },
  run(context) {
    const query = parseListQuery(context.query, userListSpec, context.strict)
    return success(runListQuery(context.instance.store.users, query, userListSpec))
  },
}

const createUser: Operation = {
  docs: {
    operationId: 'createUser',
    summary: 'Create a user',
    tags: ['users'],
    success: { status: 201, data: userSchema },
    body: userCreateSchema,
    errors: ['validationFailed', 'usernameTaken', 'emailTaken'],
  },
  async run(context) {
    const input = validateBody(userCreateSchema, await context.readJson(), {
      strict: context.strict,
      readOnly,
    })
    assertUnique(context, input)
    const now = context.now()
    const user = context.instance.store.users.insert({ ...input, createdAt: now, updatedAt: now })
    return created(context, `/users/${user.id}`, user)
  },
}

const getUser: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'getUser',
    summary: 'Get a user',
    tags: ['users'],
    success: { status: 200, data: userSchema },
    query: 'fields',
    listSpec: userListSpec,
    errors: ['notFound'],
  },
  run(context) {
    const selected = parseRecordQuery(context.query, fields, context.strict)
    return success(selectFields(pathUser(context), selected))
  },
}

const replaceUser: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'replaceUser',
    summary: 'Replace a user',
    description:
      'Every writable field is required (a member sends only name and email: they cannot write role or status).',
    tags: ['users'],
    success: { status: 200, data: userSchema },
    body: userReplaceSchema,
    errors: ['notFound', 'permissionDenied', 'validationFailed', 'usernameTaken', 'emailTaken'],
  },
  run: (context) => update(context, true),
}

const patchUser: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'updateUser',
    summary: 'Update a user partially',
    tags: ['users'],
    success: { status: 200, data: userSchema },
    body: userPatchSchema,
    errors: ['notFound', 'permissionDenied', 'validationFailed', 'usernameTaken', 'emailTaken'],
  },
  run: (context) => update(context, false),
}

const deleteUser: Operation = {
  docs: {
    operationId: 'deleteUser',
    summary: "Delete a user and the user's orders",
    tags: ['users'],
    success: { status: 204, data: null, representation: userSchema },
    errors: ['notFound'],
  },
  run(context) {
    const user = pathUser(context)
    const { store } = context.instance
    for (const orderId of store.orders.group('userId', user.id)) {
      removeOrder(context, store.orders.get(orderId)!)
    }
    store.users.delete(user.id)
    return deleted(context, user)
  },
}

export const userRoutes: Route<Operation>[] = [
  { path: '/users', operations: { GET: listUsers, POST: createUser } },
  {
    path: '/users/{user_id}',
    operations: { GET: getUser, PUT: replaceUser, PATCH: patchUser, DELETE: deleteUser },
  },
]
