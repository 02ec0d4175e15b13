import { ApiError } from '../../contract/api-error.js'
import type { Operation, Principal } from '../operation.js'

/**
 * Step 6, permissions (CONTRACT B4): who besides an admin may call an operation (`anyone`
 * signed in, or `own`: a member on their own account), and which fields only an admin may set.
 * Every 403 names the rule that refused. This is the one place these rules are applied; each
 * resource's definition says which apply to it (`permissions`, `adminOnly`).
 */

/** 403 / 40300 unless the caller is an admin or the operation's permission lets them in. */
export function authorize(
  operation: Operation,
  principal: Principal,
  params: Record<string, string>,
  ownParam: string,
): void {
  if (principal.admin || operation.permission === 'anyone') return
  if (operation.permission === 'own' && params[ownParam] === String(principal.userId)) return
  throw ApiError.of(
    'permissionDenied',
    `permission denied: ${operation.denied ?? 'only an admin may do this'}`,
  )
}

/**
 * 403 / 40300 when a caller who is not an admin sets an admin-only field to something new
 * (CONTRACT B4: only an admin may set or change a user's role).
 */
export function assertMayChange(
  principal: Principal | null,
  adminOnly: readonly string[],
  current: Readonly<Record<string, unknown>> | undefined,
  body: unknown,
): void {
  if (!principal || principal.admin || typeof body !== 'object' || body === null) return
  const changes = body as Record<string, unknown>
  for (const field of adminOnly) {
    if (field in changes && changes[field] !== current?.[field]) {
      throw ApiError.of(
        'permissionDenied',
        `permission denied: only an admin may set or change ${field}`,
      )
    }
  }
}
