import { ApiError } from '../contract/api-error.js'
import { noContent, success } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import type { OperationContext } from './operation.js'

/** 404 / 40400 saying which record is missing, e.g. "user 42 not found". */
export function notFound(resource: string, id: number): ApiError {
  return ApiError.of('notFound', `${resource} ${id} not found`)
}

/** The record a path id names (`user_id` → user), or 404 saying which one is missing. */
export function pathRecord<T>(
  context: OperationContext,
  table: { get(id: number): T | undefined },
  resource: 'user' | 'product' | 'order',
): T {
  const id = context.ids[`${resource}_id`]!
  const record = table.get(id)
  if (!record) throw notFound(resource, id)
  return record
}

/** 201 with the new record and a `Location` header pointing at it. */
export function created(context: OperationContext, path: string, record: unknown): ApiResponse {
  return success(record, 201, { location: `${context.basePath}${path}` })
}

/** 204, or 200 with the deleted record under `Prefer: return=representation` (CONTRACT B2). */
export function deleted(context: OperationContext, record: unknown): ApiResponse {
  return context.wantsRepresentation ? success(record) : noContent()
}
