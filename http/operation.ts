import type * as z from 'zod'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import type { CodeDefinition, CodeSpec } from '../contract/codes.js'
import type { Permission } from '../resources/define.js'
import type { QuerySchema } from '../resources/query.js'
import type { DataService } from '../resources/service.js'
import type { SandboxInstance } from '../state/instance.js'

/** Who is calling, once authenticated. */
export interface Principal {
  /** The account's id. */
  userId: number
  /** Whether the account is an admin (its role field holds the admin value). */
  admin: boolean
  /** The token used, when one was sent. */
  token?: string
  /** A session token (from POST /sessions) rather than a fixed one. */
  session: boolean
}

/** Everything an operation needs for one request. */
export interface OperationContext {
  request: ApiRequest
  instance: SandboxInstance
  /** The sandbox's data and the rules of its resources. */
  data: DataService
  /** Path ids, validated as positive integers. */
  ids: Record<string, number>
  query: URLSearchParams
  principal: Principal | null
  strict: boolean
  /** The base path resources live under ('' or e.g. '/api'), for `Location` headers. */
  basePath: string
  /** Reads the JSON body (413, 415, 400 / 40004); remembered for the request journal. */
  readJson(): Promise<unknown>
  /** Whether the client sent `Prefer: return=representation`. */
  wantsRepresentation: boolean
}

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
  /** The query it takes (none when absent): the schema that validates it documents it. */
  query?: QuerySchema
  /** Business errors the operation itself can raise (the pipeline's own are added). */
  errors: readonly (CodeSpec | CodeDefinition)[]
}

export interface Operation {
  /** Needs a bearer token (default true). */
  auth?: boolean
  /** Who besides admins may call it (CONTRACT B4). */
  permission: Permission
  /**
   * Whether a success changes the sandbox's data, so it must be saved (default: for POST, PUT,
   * PATCH and DELETE). Signing in and out change sessions only.
   */
  changesData?: boolean
  /** The conflict `Prefer: code=409` answers here: its resource's own (CONTRACT C1). */
  conflict?: CodeDefinition
  /** The rule a 403 names when the permission refuses (`members may read only their own user`). */
  denied?: string
  docs: OperationDocs
  run(context: OperationContext): ApiResponse | Promise<ApiResponse>
}
