import * as z from 'zod'
import { timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'
import { once } from '../contract/once.js'
import { foldCase } from '../db/store.js'
import { SEED_PASSWORD } from '../shop/accounts.js'
import { shopApi } from '../shop/index.js'
import type { User } from '../shop/users.js'
import { userSchema } from '../shop/users.js'
import { ApiError } from '../contract/api-error.js'
import { safeEqual } from './auth.js'
import { validateBody } from './body.js'
import { noContent, success } from '../contract/envelope.js'
import type { Operation } from './operation.js'
import type { Route } from './router.js'

/** Body of `POST /sessions` (built on first use). */
const credentialsSchema = once(() =>
  documented(z.object({ email: z.string().max(254), password: z.string().max(1024) }), {
    id: 'Credentials',
  }),
)

/** What `POST /sessions` returns (built on first use). */
const sessionSchema = once(() =>
  documented(
    z.object({
      token: documented(z.string(), { description: 'Send it as Authorization: Bearer <token>.' }),
      expiresAt: timestampSchema,
      user: userSchema,
    }),
    { id: 'Session' },
  ),
)

const createSession: Operation = {
  auth: false,
  permission: 'anyone',
  changesData: false,
  docs: {
    operationId: 'createSession',
    summary: 'Sign in: exchange e-mail and password for a bearer token',
    description:
      'Every seeded user’s password is `password`. Tokens expire after the token TTL (one hour by default).',
    tags: ['sessions'],
    get success() {
      return { status: 201, data: sessionSchema() }
    },
    get body() {
      return credentialsSchema()
    },
    errors: ['validationFailed', 'wrongCredentials'],
  },
  async run(context) {
    const body = await context.readJson()
    const { email, password } = validateBody(credentialsSchema(), body, {
      strict: context.strict,
      readOnly: [],
    })
    const user = context.data.table<User>(shopApi.accounts).findUnique('email', foldCase(email))
    const passwordMatches = safeEqual(password, SEED_PASSWORD)
    if (!user || !passwordMatches) {
      throw ApiError.of('wrongCredentials')
    }
    return success({ ...context.instance.sessions.create(user.id), user }, 201)
  },
}

const endSession: Operation = {
  permission: 'anyone',
  changesData: false,
  docs: {
    operationId: 'deleteSession',
    summary: 'Sign out: revoke the token used',
    description:
      'The fixed sandbox tokens cannot be revoked: for them this succeeds and changes nothing.',
    tags: ['sessions'],
    success: { status: 204, data: null },
    errors: [],
  },
  run(context) {
    const { principal } = context
    if (principal?.session && principal.token) context.instance.sessions.revoke(principal.token)
    return noContent()
  },
}

export const sessionRoutes: Route<Operation>[] = [
  { path: '/sessions', operations: { POST: createSession } },
  { path: '/sessions/current', operations: { DELETE: endSession } },
]
