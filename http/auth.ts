import type { SandboxInstance } from '../state/instance.js'
import { ApiError } from '../contract/api-error.js'
import { fixedTokens } from '../shop/accounts.js'
import { shopApi } from '../shop/index.js'
import type { User } from '../shop/users.js'
import type { Principal } from './operation.js'

/**
 * The fixed tokens by value. Looked up, not compared in constant time: they are published
 * (README, CONTRACT B4), so their bytes are no secret a timing could leak; session tokens are
 * found by the same kind of lookup.
 */
const fixedTokenUsers = new Map<string, (typeof fixedTokens)[number]>(
  fixedTokens.map((entry) => [entry.token, entry]),
)

/**
 * Resolves the caller from `Authorization: Bearer <token>` (CONTRACT B4): missing → 40100;
 * malformed, unknown, revoked or expired → 40101. With auth off, no header means the admin.
 */
export function authenticate(header: string | null, instance: SandboxInstance): Principal {
  if (header === null || header.trim() === '') {
    if (!instance.config.auth) return { userId: 1, role: 'admin', session: false }
    throw ApiError.of(
      'authenticationRequired',
      'authentication required: send Authorization: Bearer <token>',
    )
  }
  const token = bearerToken(header)
  const fixed = fixedTokenUsers.get(token)
  const userId = fixed ? fixed.userId : instance.sessions.userFor(token)
  if (userId === undefined) throw ApiError.of('invalidToken')
  const user = instance.store.table<User>(shopApi.accounts).get(userId)
  if (!user) throw ApiError.of('invalidToken', 'invalid token: its user no longer exists')
  return { userId, role: user.role, token, session: !fixed }
}

/** The token of `Bearer <token>`, or 401 / 40101 for any other form. */
function bearerToken(header: string): string {
  // The form every client sends, settled without the regular expression: `Bearer ` and a fixed
  // token (printable, no spaces), which is what the expression would capture.
  if (header.startsWith('Bearer ')) {
    const rest = header.slice(7)
    if (fixedTokenUsers.has(rest)) return rest
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
