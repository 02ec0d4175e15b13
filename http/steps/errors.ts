import { ApiError } from '../../contract/api-error.js'
import { failure } from '../../contract/envelope.js'
import type { ApiRequest, ApiResponse } from '../../contract/exchange.js'
import { clip } from '../../contract/params.js'
import { IdsExhausted } from '../../db/table.js'

/**
 * What any step's failure becomes (Hono's one place): an {@link ApiError} its envelope; a full
 * id sequence a 422; anything unexpected a logged 500 that leaks nothing.
 */
export function toErrorResponse(
  error: unknown,
  onUnexpectedError: (error: unknown) => void,
): ApiResponse {
  if (error instanceof ApiError) return failure(error)
  if (error instanceof IdsExhausted) {
    return failure(
      ApiError.invalid([`id: ${error.message}; delete ${error.table} or reset the data`]),
    )
  }
  onUnexpectedError(error)
  return failure(ApiError.of('internalError'))
}

/** How the message of a 404 for a path no route serves begins. */
export const NO_ROUTE = 'no route for '

/** 404 / 40400 for a path no route serves. */
export function noRoute(request: ApiRequest): ApiError {
  return ApiError.of('notFound', `${NO_ROUTE}${request.method} ${clip(request.url.pathname, 100)}`)
}
