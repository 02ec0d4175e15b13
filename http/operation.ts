import type * as z from 'zod'
import type { UserRole } from '../shop/user-schema.js'
import type { SandboxInstance } from '../state/instance.js'
import type { CodeName } from '../contract/codes.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'

/** Who is calling, once authenticated. */
export interface Principal {
  userId: number
  role: UserRole
  /** The token used, when one was sent. */
  token?: string
  /** A session token (from POST /sessions) rather than a fixed one. */
  session: boolean
}

/** Everything an operation needs for one request. */
export interface OperationContext {
  request: ApiRequest
  instance: SandboxInstance
  /** Path ids, validated as positive integers. */
  ids: Record<string, number>
  query: URLSearchParams
  principal: Principal | null
  strict: boolean
  /** The base path resources live under ('' or e.g. '/api'), for `Location` headers. */
  basePath: string
  /** Current time as an ISO 8601 UTC string with milliseconds. */
  now(): string
  /** Reads the JSON body (413, 415, 400 / 40004); remembered for the request journal. */
  readJson(): Promise<unknown>
  /** Whether the client sent `Prefer: return=representation`. */
  wantsRepresentation: boolean
}

/** Who may call an operation besides admins, who may call everything (CONTRACT B4). */
export type Permit = (principal: Principal, params: Readonly<Record<string, string>>) => boolean

/** Documentation of an operation, for the OpenAPI document. */
export interface OperationDocs {
  /** Unique name of the operation in the OpenAPI document, e.g. `listUsers`. */
  operationId: string
  summary: string
  description?: string
  tags: string[]
  /**
   * The success status and the schema of `data` (null for 204); for a DELETE, the record
   * returned under `Prefer: return=representation`.
   */
  success: { status: number; data: z.ZodType | null; list?: boolean; representation?: z.ZodType }
  /** The request body schema, if the operation takes one. */
  body?: z.ZodType
  /** The query parameters: a list query, only `fields`, or none. */
  query?: 'list' | 'fields'
  /** Business errors the operation itself can raise (the pipeline's own are added). */
  errors: readonly CodeName[]
  /** The resource's list spec: fields, sort fields, status values and extra id filters. */
  listSpec?: {
    fields: readonly string[]
    sortable: readonly string[]
    statuses: readonly string[]
    idFilters?: Readonly<Record<string, string>>
  }
}

export interface Operation {
  /** Needs a bearer token (default true). */
  auth?: boolean
  /** Who besides admins may call it; omitted means admins only. */
  permit?: Permit
  docs: OperationDocs
  run(context: OperationContext): ApiResponse | Promise<ApiResponse>
}

/** Any authenticated caller. */
export const anyone: Permit = () => true

/** A member acting on their own user (the `user_id` in the path is theirs). */
export const ownUser: Permit = (principal, params) => params.user_id === String(principal.userId)
