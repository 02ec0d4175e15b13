import * as z from 'zod'
import { problemList } from '../../contract/api-error.js'
import { isInterim } from '../../contract/exchange.js'
import { documented } from '../../contract/registry.js'
import { holdingNames } from '../../contract/fields.js'
import {
  describeIssues,
  distinctIssues,
  formatPath,
  safeParseReporting,
} from '../../contract/issues.js'
import { jsonFootprint, MAX_JSON_DEPTH, notJson } from '../../contract/json-size.js'
import { once } from '../../contract/once.js'
import { clip } from '../../contract/params.js'
import {
  headerNameProblem,
  headerValueProblem,
  SERVER_OWNED_HEADERS,
} from '../../contract/headers.js'
import { limitFlag, MAX_OVERRIDES_BYTES } from '../limits.js'
import { MAX_DELAY_MS } from '../runtime-config.js'

/** Methods an override may name (HEAD is matched by GET overrides, as by GET routes). */
export const overrideMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export type OverrideMethod = (typeof overrideMethods)[number]

/**
 * A method of {@link overrideMethods}, in any case (`get` is GET), as an override and MCP's
 * `call_api` take it; its JSON Schema lists them (`enum`) although it takes any case.
 */
export const methodSchema = () =>
  z
    .string()
    .transform((method) => method.toUpperCase())
    .pipe(z.enum(overrideMethods, { error: `must be one of ${overrideMethods.join(', ')}` }))
    .meta({ enum: [...overrideMethods] })

/** Entries of a sequence (`responses`) at most. */
export const MAX_SEQUENCE = 100
/**
 * Query parameters or headers one override may require, or response headers it may send, at
 * most; and what MCP's `call_api` may send of each.
 */
export const MAX_CONDITIONS = 50
/** Bytes of response headers one override may send (clients refuse answers with huge headers). */
export const MAX_HEADER_BYTES = 8 * 1024
/** Characters of JSON a body condition may hold: every request on its path is compared with it. */
const MAX_BODY_CONDITION = 16 * 1024
/** The longest path an override (or a journal filter) names, in characters. */
export const MAX_PATH = 2000
/**
 * The most segments an override's path has: each is compared with every request's path (1,000
 * overrides of ~1,000 segments held the loop ~12 ms a request, matching alone).
 */
export const MAX_PATH_SEGMENTS = 64
/** How deep an override's JSON may nest (as request bodies: CONTRACT C3). */
export const MAX_DEPTH = MAX_JSON_DEPTH

/**
 * The statuses an override may answer (CONTRACT C2). A 1xx is an interim answer, never a final
 * one: it is sent as one and the connection closed after it (see `overrideAnswer`).
 */
export const OVERRIDE_STATUSES = { min: 100, max: 599 } as const
const statusRange = `from ${OVERRIDE_STATUSES.min} to ${OVERRIDE_STATUSES.max}`

/** An answer's envelope fields, and every field that gives it content (a raw body or text too). */
const envelopeFields = ['code', 'message', 'data'] as const
const contentFields = [...envelopeFields, 'body', 'text'] as const

/**
 * A header name given before in another case (`Set-Cookie`, `set-cookie`): names are
 * case-insensitive, and one of the two was lost unsaid. Null the first time (noted in `seen`).
 */
function twice(seen: Map<string, string>, name: string): string | null {
  const key = name.toLowerCase()
  const first = seen.get(key)
  if (first === undefined) {
    seen.set(key, name)
    return null
  }
  return `is given twice, as '${clip(first)}' too (header names are case-insensitive); give it once`
}

/** Response headers: each name and value as HTTP allows, none the server owns (framing, connection). */
const responseHeadersSchema = holdingNames(
  z.record(z.string(), z.string()).superRefine((headers, context) => {
    const names = Object.keys(headers)
    const bytes = names.reduce((sum, name) => sum + name.length + headers[name]!.length + 4, 0)
    if (bytes > MAX_HEADER_BYTES)
      context.addIssue({
        code: 'custom',
        path: [],
        message: `must be at most ${MAX_HEADER_BYTES} bytes of headers (got ${bytes})`,
      })
    const seen = new Map<string, string>()
    for (const [name, value] of Object.entries(headers)) {
      const problem =
        headerNameProblem(name) ??
        twice(seen, name) ??
        (SERVER_OWNED_HEADERS.has(name.toLowerCase())
          ? `is set by the server (${[...SERVER_OWNED_HEADERS].join(', ')} cannot be overridden)`
          : headerValueProblem(value))
      if (problem) context.addIssue({ code: 'custom', path: [name], message: problem })
    }
  }),
  MAX_CONDITIONS,
  'headers',
)

/** Request headers an override requires: names as HTTP allows, values as given. */
const requestHeadersSchema = holdingNames(
  z.record(z.string(), z.string().max(4000)).superRefine((headers, context) => {
    const seen = new Map<string, string>()
    for (const name of Object.keys(headers)) {
      const problem =
        headerNameProblem(name) ?? twice(seen, name) ?? headerValueProblem(headers[name]!)
      if (problem) context.addIssue({ code: 'custom', path: [name], message: problem })
    }
  }),
  MAX_CONDITIONS,
  'headers',
)

/** Any JSON value: over HTTP it always is; `sandbox.override()` in code may be given anything. */
const jsonValue = () =>
  z.unknown().superRefine((value, context) => {
    const problem = notJson(value)
    if (problem) context.addIssue({ code: 'custom', message: `must be JSON: ${problem}` })
  })

/**
 * What an override answers (CONTRACT C2): an envelope (`status` with `code`, `message`, `data`),
 * a raw JSON `body`, or a dropped connection (`drop: true`); `headers` and `delayMs` with any.
 * One object, so each problem names its own field (`response.status`), not the whole union.
 */
const overrideResponseSchema = once(() =>
  documented(
    z
      .strictObject({
        status: documented(
          z
            .int(`must be an integer ${statusRange}`)
            .min(OVERRIDE_STATUSES.min, `must be ${statusRange}`)
            .max(OVERRIDE_STATUSES.max, `must be ${statusRange}`),
          {
            description: `The HTTP status, ${OVERRIDE_STATUSES.min}-${OVERRIDE_STATUSES.max} (a 1xx is sent as an interim answer and the connection closed after it). Required unless \`drop\` is true.`,
          },
        ).optional(),
        code: documented(z.int().min(0).max(99_999), {
          description: 'The business code; default: the B5 code of the status.',
        }).optional(),
        message: z.string().max(2000).optional(),
        data: documented(jsonValue(), { description: 'The `data` of a 2xx envelope.' }).optional(),
        body: documented(jsonValue(), {
          description: 'Any JSON, sent as it is instead of an envelope.',
        }).optional(),
        text: documented(z.string(), {
          description:
            'A body that is not JSON (an HTML page, CSV), sent as it is, as UTF-8; its Content-Type from `headers`, else text/plain. What the recorder (the server’s record option) writes for such answers.',
        }).optional(),
        headers: documented(responseHeadersSchema, {
          description:
            'Response headers. Names and values as HTTP allows; Content-Length, Transfer-Encoding, Connection and the other headers the server owns are refused.',
        }).optional(),
        delayMs: z.int().min(0).max(MAX_DELAY_MS).optional(),
        drop: documented(z.literal(true), {
          description:
            'Drop the connection instead of answering: reset, or closed after the answers before it on a keep-alive connection.',
        }).optional(),
      })
      .superRefine((response, context) => {
        const refuse = (fields: readonly (keyof typeof response)[], message: string) => {
          for (const field of fields)
            if (response[field] !== undefined)
              context.addIssue({ code: 'custom', path: [field], message })
        }
        if (response.drop)
          return refuse(
            ['status', ...contentFields, 'headers'],
            'cannot be combined with drop: a dropped connection answers nothing',
          )
        if (response.status === undefined)
          context.addIssue({
            code: 'custom',
            path: ['status'],
            message: 'is required (or give drop: true)',
          })
        // A 1xx is an interim answer: headers only, no content follows it.
        else if (isInterim(response.status))
          return refuse(
            contentFields,
            `cannot be combined with status ${response.status}: a 1xx answer carries headers only`,
          )
        const raw = (name: string) =>
          `cannot be combined with ${name}: ${name} is sent as it is, without an envelope`
        if (response.body !== undefined) refuse(envelopeFields, raw('body'))
        if (response.text !== undefined) refuse([...envelopeFields, 'body'], raw('text'))
      }),
    { id: 'OverrideAnswer' },
  ),
)

export type OverrideResponse = z.output<ReturnType<typeof overrideResponseSchema>>

/** The body of `POST /__sandbox/overrides` and of `sandbox.override()` (built on first use). */
export const overrideInputSchema = once(() =>
  documented(
    z
      .strictObject({
        method: documented(methodSchema().optional(), {
          description:
            'Default: the methods of the route at `path` (any method on a path the API lacks).',
        }),
        path: documented(
          z
            .string()
            .min(1)
            .max(MAX_PATH)
            .regex(
              /^\/[^?#\s\x00-\x1f\x7f]*$/,
              'must be a path starting with / (like /users/{user_id}), without a query, fragment, spaces or control characters',
            )
            .superRefine((path, context) => {
              const problem = pathProblem(path)
              if (problem) context.addIssue({ code: 'custom', message: problem })
            }),
          {
            description:
              'Relative to the base path: a route template (`/users/{user_id}`) matches every id, a concrete path (`/users/5`) that one; a path the API lacks makes a stub.',
          },
        ),
        query: documented(
          holdingNames(
            z.record(z.string().max(200), z.string().max(4000)),
            MAX_CONDITIONS,
            'parameters',
          ).optional(),
          { description: 'Every listed query parameter must be present with this value.' },
        ),
        headers: documented(requestHeadersSchema.optional(), {
          description:
            'Every listed request header must be present with this value (names case-insensitive).',
        }),
        body: documented(
          z.unknown().superRefine((value, context) => {
            const problem = notJson(value, { condition: true })
            if (problem) context.addIssue({ code: 'custom', message: `must be JSON: ${problem}` })
            else if ((JSON.stringify(value) ?? '').length > MAX_BODY_CONDITION)
              context.addIssue({
                code: 'custom',
                message: `must be at most ${MAX_BODY_CONDITION} characters of JSON`,
              })
          }),
          {
            description:
              "The request's JSON body must contain this value: every key of an object present with a matching value, recursively; arrays and scalars equal.",
          },
        ).optional(),
        times: documented(z.int().min(1).max(1_000_000_000).optional(), {
          description: 'Matching requests it answers, then it is removed. Default: unlimited.',
        }),
        response: overrideResponseSchema().optional(),
        responses: documented(
          z.array(overrideResponseSchema()).min(1).max(MAX_SEQUENCE).optional(),
          {
            description:
              'A sequence instead of `response`: the first matching request gets the first entry, the next the second, and so on; the last repeats.',
          },
        ),
      })
      .superRefine((input, context) => {
        const given = Number(input.response !== undefined) + Number(input.responses !== undefined)
        if (given !== 1)
          context.addIssue({
            code: 'custom',
            path: [given === 0 ? 'response' : 'responses'],
            message:
              given === 0
                ? 'is required (or give responses, a sequence)'
                : 'cannot be combined with response: give one of them',
          })
      }),
    { id: 'OverrideCreate' },
  ),
)

/** Why an override is refused for its size alone: past what one sandbox's overrides may take. */
export function overrideTooLarge(maxBytes: number): string {
  return `override too large: it takes more than the ${maxBytes} bytes overrides may take in one sandbox (${limitFlag('overridesBytes')})`
}

export type OverrideInput = z.input<ReturnType<typeof overrideInputSchema>>
export type ParsedOverride = z.output<ReturnType<typeof overrideInputSchema>>

/**
 * An override validated as `POST /__sandbox/overrides` validates it, as a copy of its own, or a
 * TypeError naming each bad field after `prefix` (`Invalid override: response.status: must be
 * from 100 to 599`).
 */
export function parseOverride(
  input: unknown,
  prefix = 'Invalid override',
  /** What the sandbox's overrides may take (`overridesBytes`): one larger alone is a RangeError. */
  maxBytes = MAX_OVERRIDES_BYTES,
): ParsedOverride {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(
      `${prefix}: override: must be an object, got ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}`,
    )
  // Checked before the schema walks it (recursively): as request bodies are (CONTRACT C3). Its
  // size too, and first: an object made in code may be cheap to make and long to walk.
  const shape = jsonFootprint(input, MAX_DEPTH, maxBytes)
  if (shape.over) throw new RangeError(`${prefix}: ${overrideTooLarge(maxBytes)}`)
  if (shape.tooDeep)
    throw new TypeError(
      `${prefix}: ${tooDeepPart(input)}: nests past the ${MAX_DEPTH} levels an override may take (or holds a cycle)`,
    )
  // Checked as given, so each message names the caller's own field; then kept as a JSON copy,
  // checked again: what the caller changes in its objects later is never answered unweighed.
  const given = checkedOverride(input, prefix)
  let copy: unknown
  try {
    copy = JSON.parse(JSON.stringify(given))
  } catch (error) {
    throw new TypeError(`${prefix}: override: must be JSON: ${(error as Error).message}`, {
      cause: error,
    })
  }
  return checkedOverride(copy, prefix)
}

/** Which part of an override nests too deep, two levels down at most: `response.body`, `responses[1]`. */
function tooDeepPart(input: object): string {
  const path: PropertyKey[] = []
  let value: unknown = input
  for (let level = 1; level <= 2 && typeof value === 'object' && value !== null; level++) {
    const entry = Object.entries(value).find(
      ([, part]) => jsonFootprint(part, MAX_DEPTH - level).tooDeep,
    )
    if (!entry) break
    path.push(Array.isArray(value) ? Number(entry[0]) : entry[0])
    value = entry[1]
  }
  return formatPath(path) || 'override'
}

function checkedOverride(input: unknown, prefix: string): ParsedOverride {
  const parsed = safeParseReporting(overrideInputSchema(), input)
  if (parsed.success) return parsed.data
  const problems = distinctIssues(parsed.error.issues).flatMap((issue) =>
    describeIssues(issue, 'override'),
  )
  throw new TypeError(`${prefix}: ${problemList(problems)}`)
}

/** A stored override, as `GET /__sandbox/overrides` lists it. */
export interface Override {
  id: number
  method?: OverrideMethod
  path: string
  query?: Record<string, string>
  headers?: Record<string, string>
  body?: unknown
  times?: number
  /** Matching requests it still answers (counted overrides only). */
  remaining?: number
  response?: OverrideResponse
  responses?: OverrideResponse[]
  /** The index in `responses` answered next (sequences only). */
  next?: number
}

export const overrideSchema = once(() =>
  documented(
    z.object({
      id: z.int(),
      method: z.enum(overrideMethods).optional(),
      path: z.string(),
      query: z.record(z.string(), z.string()).optional(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
      times: z.int().optional(),
      remaining: z.int().optional(),
      response: overrideResponseSchema().optional(),
      responses: z.array(overrideResponseSchema()).optional(),
      next: documented(z.int(), {
        description: 'The index in `responses` answered next (sequences only).',
      }).optional(),
    }),
    { id: 'Override' },
  ),
)

/** Why an override's path could never match a request, or null when it can. */
function pathProblem(path: string): string | null {
  if (path === '/__sandbox' || path.startsWith('/__sandbox/'))
    return 'must not be under /__sandbox: the control API cannot be overridden'
  if (path.includes('\\'))
    return "has a backslash: a request's URL reads \\ as /, so no request reaches it; write /"
  const segments = path.replace(/\/$/, '').split('/').slice(1)
  if (path !== '/' && segments.some((segment) => segment === ''))
    return 'must not have empty segments (//): no request reaches such a path'
  if (segments.length > MAX_PATH_SEGMENTS)
    return `must have at most ${MAX_PATH_SEGMENTS} segments, got ${segments.length}`
  for (const segment of segments) {
    // `.`, `..`, `%2e` and `%2e%2e` as URLs read them: resolved before a request is matched.
    if (/^(?:\.|%2e){1,2}$/i.test(segment))
      return `has a '${segment}' segment: a request's URL resolves it before it is matched (/a/../users is /users); write the path it resolves to`
    if (/^:\w+$/.test(segment))
      return `names a parameter as ${segment}: write it in braces, like {${segment.slice(1)}}`
    if (/[{}]/.test(segment) && !/^\{\w+\}$/.test(segment))
      return `has '${segment}': a parameter is a whole segment, like {user_id}`
  }
  return null
}
