import { ApiError } from './api-error.js'
import { codeForStatus, codes } from './codes.js'
import type { ApiRequest } from './exchange.js'

/** The preferences of a `Prefer` header (RFC 7240) the sandbox honours. */
export interface Preferences {
  /** `return=representation`: DELETE answers 200 with the deleted record. */
  representation: boolean
  /** `code=<status>`: answer that status (as Stoplight Prism does). */
  code?: number
}

export function parsePrefer(request: ApiRequest): Preferences {
  const header = request.header('prefer')
  const preferences: Preferences = { representation: false }
  if (header === null) return preferences
  for (const part of header.split(/[,;]/)) {
    const [key = '', value = ''] = part.split('=').map((token) => token.trim().toLowerCase())
    if (key === 'return' && value === 'representation') preferences.representation = true
    if (key === 'code' && /^\d{3}$/.test(value)) preferences.code = Number(value)
  }
  return preferences
}

/**
 * The forced response of `Prefer: code=<status>`, if the status has a business code:
 * an ApiError to throw before the operation has any effect. Unknown codes are ignored.
 */
export function forcedError(preferences: Preferences, allow: string): ApiError | null {
  const name = preferences.code === undefined ? undefined : codeForStatus[preferences.code]
  if (!name) return null
  return ApiError.of(
    name,
    `${codes[name].message} (forced by Prefer: code=${preferences.code})`,
    preferences.code === 405 ? { allow } : {},
  )
}
