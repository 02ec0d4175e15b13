import type * as z from 'zod'
import type { ListPayload } from '../contract/envelope.js'
import { success } from '../contract/envelope.js'
import { pagingSchema, parseQuery } from '../resources/query.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import type { Catalog } from '../resources/catalog.js'
import type { QuerySchema } from '../resources/query.js'
import type { SandboxInstance } from '../state/instance.js'
import type { ScenarioSet } from '../state/scenarios.js'

/** The control API's routes (CONTRACT C1, C2, C5) share these: what a control operation is and sees. */

export interface ControlContext extends ControlHost {
  request: ApiRequest
  instance: SandboxInstance
  /**
   * Reads the JSON body; given `seen`, its size (and the body) are written there; `admit` is
   * told its size once read, before it is parsed, and may refuse it by throwing.
   */
  readJson(
    limit?: number,
    seen?: { bytes?: number; body?: unknown },
    admit?: (bytes: number) => void,
  ): Promise<unknown>
}

/** What the control API needs of the sandbox that serves it. */
export interface ControlHost {
  /** Every live sandbox: the default one first. */
  sandboxes(): readonly SandboxInstance[]
  catalog: Catalog
  /** The path the API's resources live under (`''` or `/api`). */
  basePath: string
  /** The scenarios a sandbox can be put in (CONTRACT C5). */
  scenarios: ScenarioSet
}

export interface ControlOperation {
  docs: {
    operationId: string
    summary: string
    description?: string
    success: { status: number; data: z.ZodType | null; list?: boolean }
    body?: z.ZodType
    /** The query it takes: the schema that validates it documents it. */
    query?: QuerySchema
  }
  /**
   * It replaces the sandbox's data (a switch, a document, a reset): it does not wait for the
   * replacements in line before it, but takes its place among them once its body is read
   * (`instance.replacing`); requests arriving while it reads its body wait for it
   * (`instance.arriving`). Any other control operation waits for them, as the API's do.
   */
  replaces?: true
  run(context: ControlContext): ApiResponse | Promise<ApiResponse>
}

/** One page (`page`, `pageSize`) of a whole list, as a list payload. */
export function pageOf(all: readonly unknown[], params: URLSearchParams): ApiResponse {
  const { page, pageSize } = parseQuery(pagingSchema(), params, false) as {
    page: number
    pageSize: number
  }
  const start = (page - 1) * pageSize
  const payload: ListPayload<unknown> = {
    list: all.slice(start, start + pageSize),
    total: all.length,
    page,
    pageSize,
  }
  return success(payload)
}
