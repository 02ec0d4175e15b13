import type { CodeDefinition, CodeSpec, GenericCodeName } from './codes.js'
import { AnswerError } from './answer-error.js'
import { codeEntry, codes } from './codes.js'

/** Headers a status always carries (CONTRACT B4, B5): the 401 challenge, 429's `Retry-After`. */
export const statusHeaders: Readonly<Record<number, Readonly<Record<string, string>>>> = {
  401: { 'www-authenticate': 'Bearer' },
  429: { 'retry-after': '1' },
}

/** Problems one message names at most (a body with 100,000 unknown fields gets a short message). */
export const MAX_PROBLEMS = 50

/**
 * At most {@link MAX_PROBLEMS} of `problems`, and how many more there are (those past the list,
 * and `uncounted` more a caller counted without writing them out).
 */
export function shownProblems(
  problems: readonly string[],
  uncounted = 0,
): { shown: readonly string[]; more: number } {
  return {
    shown: problems.slice(0, MAX_PROBLEMS),
    more: Math.max(0, problems.length - MAX_PROBLEMS) + uncounted,
  }
}

/** `a; b; …`: the problems {@link shownProblems} shows, then how many more there are. */
export function problemList(problems: readonly string[], uncounted = 0): string {
  const { shown, more } = shownProblems(problems, uncounted)
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ')
}

/**
 * The one error type of the API: an HTTP status, a business code (CONTRACT B5) and a
 * message for humans. Thrown anywhere while handling a request, it becomes the error
 * envelope `{ code, message, data: null }` in one place.
 *
 * @example
 * throw ApiError.of('notFound', 'user 42 not found')
 */
export class ApiError extends AnswerError {
  override readonly name = 'ApiError'

  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
  }

  /** 422 / 42200 naming every problem (`field: why`), the one shape of a validation failure. */
  static invalid(problems: readonly string[], uncounted = 0): ApiError {
    return ApiError.of('validationFailed', `validation failed: ${problemList(problems, uncounted)}`)
  }

  /** An error for a generic code, with its default message unless one is given. */
  static of(name: GenericCodeName, message?: string, headers?: Record<string, string>): ApiError {
    return ApiError.from(codes[name], message, headers)
  }

  /**
   * An error for any code: an API's own (`ApiError.from(shopCodes.insufficientStock, '…')`) or
   * a generic one by name.
   *
   * @example
   * throw ApiError.from({ code: 40910, status: 409, message: 'Slug already used' })
   */
  static from(
    spec: CodeSpec | CodeDefinition,
    message?: string,
    headers?: Record<string, string>,
  ): ApiError {
    const entry = codeEntry(spec)
    return new ApiError(entry.status, entry.code, message ?? entry.message, {
      ...statusHeaders[entry.status],
      ...headers,
    })
  }
}
