import * as z from 'zod'
import { documented } from '../contract/registry.js'
import { once } from '../contract/once.js'
import { codeForStatus, codes } from '../contract/codes.js'
import { JSON_CONTENT_TYPE } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import { MAX_DELAY_MS } from './runtime-config.js'

/** Methods an override may name (HEAD is matched by GET overrides, as by GET routes). */
const overrideMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/

/** What an override answers (CONTRACT C2): an envelope, a raw JSON body, or a dropped connection. */
const overrideResponseSchema = () =>
  z.union([
    z.strictObject({ drop: z.literal(true) }),
    z.strictObject({
      status: z.int().min(100).max(599),
      code: z.int().min(0).max(99_999).optional(),
      message: z.string().max(2000).optional(),
      data: z.unknown().optional(),
      body: z.unknown().optional(),
      headers: z
        .record(z.string().regex(headerName, 'must be a header name'), z.string().max(4000))
        .optional(),
      delayMs: z.int().min(0).max(MAX_DELAY_MS).optional(),
    }),
  ])

/** The body of `POST /__sandbox/overrides` and of `sandbox.override()` (built on first use). */
export const overrideInputSchema = once(() =>
  documented(
    z.strictObject({
      method: documented(
        z
          .string()
          .transform((method) => method.toUpperCase())
          .pipe(z.enum(overrideMethods))
          .optional(),
        { description: 'Default: any method.' },
      ),
      path: documented(
        z
          .string()
          .min(1)
          .max(2000)
          .regex(/^\/[^?#\s]*$/, 'must be a path starting with /, without query'),
        {
          description:
            'Relative to the base path: a route template (`/users/{user_id}`) matches every id, a concrete path (`/users/5`) that one; a path the API lacks makes a stub.',
        },
      ),
      query: documented(z.record(z.string(), z.string()).optional(), {
        description: 'Every listed query parameter must be present with this value.',
      }),
      times: documented(z.int().min(1).optional(), {
        description: 'Matching requests it answers, then it is removed. Default: unlimited.',
      }),
      response: overrideResponseSchema(),
    }),
    { id: 'OverrideCreate' },
  ),
)

export type OverrideInput = z.input<ReturnType<typeof overrideInputSchema>>
type ParsedInput = z.output<ReturnType<typeof overrideInputSchema>>

/** A stored override, as `GET /__sandbox/overrides` lists it. */
export interface Override {
  id: number
  method?: (typeof overrideMethods)[number]
  path: string
  query?: Record<string, string>
  times?: number
  /** Matching requests it still answers (counted overrides only). */
  remaining?: number
  response: ParsedInput['response']
}

export const overrideSchema = once(() =>
  documented(
    z.object({
      id: z.int(),
      method: z.enum(overrideMethods).optional(),
      path: z.string(),
      query: z.record(z.string(), z.string()).optional(),
      times: z.int().optional(),
      remaining: z.int().optional(),
      response: z.unknown(),
    }),
    { id: 'Override' },
  ),
)

/** A path template or concrete path as a matcher: `{name}` matches one segment. */
export function pathMatcher(path: string): (candidate: string) => boolean {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path
  if (!trimmed.includes('{')) return (candidate) => candidate === trimmed
  const pattern = trimmed
    .split('/')
    .map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  const regex = new RegExp(`^${pattern}$`)
  return (candidate) => regex.test(candidate)
}

interface Stored extends Override {
  matches: (path: string) => boolean
}

/** The overrides of one sandbox: newest first when matching; kept across data resets. */
export class Overrides {
  #list: Stored[] = []
  #nextId = 1

  /** Stores an already validated override. */
  add(input: ParsedInput): Override {
    const stored: Stored = {
      id: this.#nextId++,
      ...(input.method ? { method: input.method } : {}),
      path: input.path,
      ...(input.query ? { query: input.query } : {}),
      ...(input.times ? { times: input.times, remaining: input.times } : {}),
      response: input.response,
      matches: pathMatcher(input.path),
    }
    this.#list.push(stored)
    return this.#public(stored)
  }

  /** Oldest first, as the control API lists them. */
  list(): Override[] {
    return this.#list.map((stored) => this.#public(stored))
  }

  get size(): number {
    return this.#list.length
  }

  remove(id: number): boolean {
    const before = this.#list.length
    this.#list = this.#list.filter((stored) => stored.id !== id)
    return this.#list.length < before
  }

  clear(): void {
    this.#list = []
  }

  /**
   * The newest override matching a request (method, path relative to the base path, the query
   * of its URL), counted: one with `times` is removed after its last match.
   */
  take(method: string, path: string, url: URL): Override | null {
    for (let index = this.#list.length - 1; index >= 0; index--) {
      const stored = this.#list[index]!
      if (
        stored.method &&
        stored.method !== method &&
        !(stored.method === 'GET' && method === 'HEAD')
      )
        continue
      if (!stored.matches(path)) continue
      if (
        stored.query &&
        !Object.entries(stored.query).every(([name, value]) =>
          url.searchParams.getAll(name).includes(value),
        )
      )
        continue
      if (stored.remaining !== undefined) {
        stored.remaining -= 1
        if (stored.remaining <= 0) this.#list.splice(index, 1)
      }
      return this.#public(stored)
    }
    return null
  }

  #public(stored: Stored): Override {
    const { matches: _, ...override } = stored
    return { ...override }
  }
}

/** The answer of an override (CONTRACT C2); `delayMs` is waited by the caller. */
export function overrideAnswer(override: Override): ApiResponse {
  const response = override.response
  if ('drop' in response) return { status: 0, headers: {}, body: null, code: null, drop: true }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers ?? {}))
    headers[name.toLowerCase()] = value
  const status = response.status
  const noBody = status === 204 || status === 304 || status < 200
  if ('body' in response && response.body !== undefined) {
    return {
      status,
      code: null,
      headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
      body: noBody ? null : JSON.stringify(response.body),
    }
  }
  const known = codeForStatus[status]
  const code = status < 300 ? 0 : (response.code ?? (known ? codes[known].code : status * 100))
  const message =
    response.message ?? (status < 300 ? 'success' : known ? codes[known].message : 'error')
  const envelope = { code, message, data: status < 300 ? (response.data ?? null) : null }
  return {
    status,
    code,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: noBody ? null : JSON.stringify(envelope),
  }
}
