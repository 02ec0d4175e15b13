import type { SandboxInstance } from '../state/instance.js'
import { ApiError } from '../contract/api-error.js'
import type { Accounts } from '../resources/catalog.js'
import type { Row } from '../resources/define.js'
import type { Principal } from './operation.js'

/**
 * The fixed tokens of an API's accounts by value. Looked up, not compared in constant time:
 * they are published (README, CONTRACT B4), so their bytes are no secret a timing could leak;
 * session tokens are found by the same kind of lookup.
 */
const fixedTokenUsers = new WeakMap<Accounts, ReadonlyMap<string, number>>()

function fixedTokensOf(accounts: Accounts): ReadonlyMap<string, number> {
  let tokens = fixedTokenUsers.get(accounts)
  if (!tokens) {
    tokens = new Map(accounts.tokens.map(({ token, userId }) => [token, userId]))
    fixedTokenUsers.set(accounts, tokens)
  }
  return tokens
}

/** Whether an account is an admin: its role field holds the admin value. */
export function isAdmin(accounts: Accounts, account: Row): boolean {
  return accounts.role !== null && account[accounts.role.field] === accounts.role.admin
}

/**
 * Resolves the caller from `Authorization: Bearer <token>` (CONTRACT B4): missing → 40100;
 * malformed, unknown, revoked or expired → 40101. With auth off, no header means the first
 * admin among the fixed tokens' accounts (the first account when none is).
 */
export function authenticate(
  header: string | null,
  instance: SandboxInstance,
  accounts: Accounts,
): Principal {
  if (header === null || header.trim() === '') {
    if (!instance.config.auth) return anonymousAdmin(instance, accounts)
    throw ApiError.of(
      'authenticationRequired',
      'authentication required: send Authorization: Bearer <token>',
    )
  }
  const fixed = fixedTokensOf(accounts)
  const token = bearerToken(header, fixed)
  const fixedUser = fixed.get(token)
  const userId = fixedUser ?? instance.sessions.userFor(token)
  if (userId === undefined) throw ApiError.of('invalidToken')
  const account = instance.store.table<Row>(accounts.resource.name).get(userId)
  if (!account) throw ApiError.of('invalidToken', 'invalid token: its account no longer exists')
  return { userId, admin: isAdmin(accounts, account), token, session: fixedUser === undefined }
}

/** Who a request without a token is when auth is off: an admin account. */
function anonymousAdmin(instance: SandboxInstance, accounts: Accounts): Principal {
  const table = instance.store.table<Row>(accounts.resource.name)
  const candidates = [...accounts.tokens.map(({ userId }) => userId), 1]
  const userId =
    candidates.find((id) => {
      const account = table.get(id)
      return account !== undefined && isAdmin(accounts, account)
    }) ?? 1
  return { userId, admin: true, session: false }
}

/** The token of `Bearer <token>`, or 401 / 40101 for any other form. */
function bearerToken(header: string, fixed: ReadonlyMap<string, number>): string {
  // The form every client sends, settled without the regular expression: `Bearer ` and a fixed
  // token (printable, no spaces), which is what the expression would capture.
  if (header.startsWith('Bearer ')) {
    const rest = header.slice(7)
    if (fixed.has(rest)) return rest
  }
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header)
  if (!match)
    throw ApiError.of('invalidToken', "invalid token: Authorization must be 'Bearer <token>'")
  return match[1]!
}

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++)
    difference |= a.charCodeAt(i) ^ b.charCodeAt(i % (b.length || 1))
  return difference === 0
}
