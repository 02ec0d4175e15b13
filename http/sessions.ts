import * as z from 'zod'
import { timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'
import { foldCase } from '../db/store.js'
import type { Accounts } from '../resources/catalog.js'
import type { Row } from '../resources/define.js'
import { ApiError } from '../contract/api-error.js'
import type { CodeDefinition } from '../contract/codes.js'
import { codes } from '../contract/codes.js'
import { safeEqual } from './auth.js'
import { validateBody } from './body.js'
import { noContent, success } from '../contract/envelope.js'
import type { Operation } from './operation.js'
import type { Route } from './router.js'

const schemas = new WeakMap<Accounts, { credentials: z.ZodObject; session: z.ZodObject }>()

/**
 * The body of `POST /sessions` (`{ <login>, password }`) and what it returns (a token, when it
 * expires, the account), made from the API's accounts on first use.
 */
function schemasOf(accounts: Accounts) {
  let made = schemas.get(accounts)
  if (!made) {
    made = {
      credentials: documented(
        z.object({ [accounts.login]: z.string().max(254), password: z.string().max(1024) }),
        { id: 'Credentials' },
      ),
      session: documented(
        z.object({
          token: documented(z.string(), {
            description: 'Send it as Authorization: Bearer <token>.',
          }),
          expiresAt: timestampSchema,
          user: accounts.resource.schema,
        }),
        { id: 'Session' },
      ),
    }
    schemas.set(accounts, made)
  }
  return made
}

/** 401 / 40102 in the words of this API's login field: `wrong email or password`. */
function wrongCredentials(login: string): CodeDefinition {
  return { ...codes.wrongCredentials, message: `wrong ${login} or password` }
}

/** `POST /sessions` and `DELETE /sessions/current` (CONTRACT B2) for an API's accounts. */
export function sessionRoutes(accounts: Accounts): Route<Operation>[] {
  const { login } = accounts
  const createSession: Operation = {
    auth: false,
    permission: 'anyone',
    changesData: false,
    docs: {
      operationId: 'createSession',
      summary: `Sign in: exchange ${login} and password for a bearer token`,
      description: `Every seeded account’s password is \`${accounts.password}\`. Tokens expire after the token TTL (one hour by default).`,
      tags: ['sessions'],
      get success() {
        return { status: 201, data: schemasOf(accounts).session }
      },
      get body() {
        return schemasOf(accounts).credentials
      },
      errors: ['validationFailed', wrongCredentials(login)],
    },
    async run(context) {
      const body = await context.readJson()
      const credentials = validateBody(schemasOf(accounts).credentials, body, {
        strict: context.strict,
        readOnly: [],
      }) as Record<string, string>
      const user = context.data
        .table<Row>(accounts.resource.name)
        .findUnique(login, foldCase(credentials[login]!))
      const passwordMatches = safeEqual(credentials.password!, accounts.password)
      if (!user || !passwordMatches)
        throw ApiError.of('wrongCredentials', wrongCredentials(login).message)
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
        'The fixed sandbox tokens cannot be revoked: for them this succeeds and changes nothing (204, whatever Prefer asks). With `Prefer: return=representation`, 200 with the session ended, as POST /sessions gave it.',
      tags: ['sessions'],
      get success() {
        return { status: 204, data: null, representation: schemasOf(accounts).session }
      },
      errors: [],
    },
    run(context) {
      const { principal } = context
      const ended =
        principal?.session && principal.token
          ? context.instance.sessions.revoke(principal.token)
          : null
      // 204, or 200 with what was deleted (the session) under Prefer: return=representation (B2).
      if (!ended || !context.wantsRepresentation) return noContent()
      const user = context.data.table<Row>(accounts.resource.name).get(principal!.userId)
      return success({ ...ended, user })
    },
  }

  return [
    { path: '/sessions', operations: { POST: createSession } },
    { path: '/sessions/current', operations: { DELETE: endSession } },
  ]
}
