import { ApiError } from '../contract/api-error.js'
import type { CodeDefinition } from '../contract/codes.js'
import { codeOfStatus } from '../contract/codes.js'
import type { ApiRequest } from '../contract/exchange.js'

/** The preferences of a `Prefer` header (RFC 7240) the sandbox honours. */
export interface Preferences {
  /** `return=representation`: DELETE answers 200 with the deleted record. */
  representation: boolean
  /** `code=<status>`: answer that status (as Stoplight Prism does). */
  code?: number
}

/** What a request without `Prefer` asks for (most requests). */
const NO_PREFERENCES: Readonly<Preferences> = Object.freeze({ representation: false })

/**
 * Reads `Prefer` as RFC 7240 says: comma-separated preferences (one header or several),
 * each `token[=value]` with optional `;parameters`, values as tokens or quoted strings,
 * names case-insensitive, and only the first of a repeated preference counts.
 */
export function parsePrefer(request: ApiRequest): Preferences {
  const header = request.header('prefer')
  if (header === null) return NO_PREFERENCES
  const preferences: Preferences = { representation: false }
  const seen = new Set<string>()
  for (const [name, value] of preferenceList(header.slice(0, 4096))) {
    if (seen.has(name)) continue
    seen.add(name)
    if (name === 'return' && value?.toLowerCase() === 'representation')
      preferences.representation = true
    if (name === 'code' && value !== undefined && /^\d{3}$/.test(value))
      preferences.code = Number(value)
  }
  return preferences
}

/** `[name, value]` of each preference in a `Prefer` value; parameters after `;` are skipped. */
export function preferenceList(header: string): Array<[string, string | undefined]> {
  const list: Array<[string, string | undefined]> = []
  let index = 0
  const skipSpace = () => {
    while (header[index] === ' ' || header[index] === '\t') index++
  }
  const token = () => {
    const start = index
    while (index < header.length && !/[\s,;="]/.test(header[index]!)) index++
    return header.slice(start, index)
  }
  const word = () => {
    if (header[index] !== '"') return token()
    let text = ''
    index++
    while (index < header.length && header[index] !== '"') {
      if (header[index] === '\\') index++
      text += header[index] ?? ''
      index++
    }
    index++
    return text
  }
  /** `name[=value]` at the cursor. */
  const pair = (): [string, string | undefined] => {
    skipSpace()
    const name = token().toLowerCase()
    skipSpace()
    if (header[index] !== '=') return [name, undefined]
    index++
    skipSpace()
    return [name, word()]
  }
  while (index < header.length) {
    const preference = pair()
    skipSpace()
    while (header[index] === ';') {
      index++
      pair()
      skipSpace()
    }
    if (preference[0] !== '') list.push(preference)
    // Anything malformed up to the next comma is skipped, as a recipient may ignore it.
    while (index < header.length && header[index] !== ',') index++
    index++
  }
  return list
}

/**
 * The forced response of `Prefer: code=<status>`, if the status has a business code:
 * an ApiError to throw before the operation has any effect. Unknown codes are ignored.
 */
export function forcedError(
  preferences: Preferences,
  allow: string,
  conflict?: CodeDefinition,
): ApiError | null {
  const entry =
    preferences.code === undefined ? undefined : codeOfStatus(preferences.code, conflict)
  if (!entry) return null
  return ApiError.from(
    entry,
    `${entry.message} (forced by Prefer: code=${preferences.code})`,
    preferences.code === 405 ? { allow } : {},
  )
}
