import * as z from 'zod'
import { FRAMING_HEADERS, headerNameProblem, headerValueProblem } from '../contract/headers.js'
import { problemList, shownProblems } from '../contract/api-error.js'
import { checkBody, jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/body.js'
import { journalQuery } from '../http/control.js'
import { scenarioChoiceSchema } from '../http/scenario-routes.js'
import { NO_ROUTE } from '../http/steps/errors.js'
import { sandboxIdSchema } from '../http/steps/sandbox.js'
import { holdingNames } from '../contract/fields.js'
import {
  MAX_CONDITIONS,
  methodSchema,
  overrideInputSchema,
  overrideMethods,
} from '../state/overrides/index.js'
import { runtimeConfigPatchSchema } from '../state/runtime-config.js'
import { describeApi } from './describe.js'
import { ToolError } from './errors.js'
import type { Answer, Target } from './target.js'
import { ConnectionDropped, noAnswer } from './target.js'

/**
 * The MCP server's tools (CONTRACT C6): what a developer does with the sandbox, as an agent
 * does it. Each one's input is a zod schema made from the schemas the HTTP surface validates
 * with (an override as `POST /__sandbox/overrides` takes it, settings as `PATCH
 * /__sandbox/config`, the journal's filters as `GET /__sandbox/requests`), plus an optional
 * `sandbox` (an `X-Sandbox-Id`); the JSON Schema the tools list is made from it. Each acts
 * through the sandbox's API and control API, so its bounds (CONTRACT C3) are the sandbox's.
 */

/** What a tool answers: structured content, and a short text for the agent to read. */
export interface ToolResult {
  structured: Record<string, unknown>
  text: string
  isError?: boolean
}

export interface Tool {
  name: string
  description: string
  /** Built on first use. */
  input: () => z.ZodObject
  run(args: Record<string, unknown>, target: Target): Promise<ToolResult>
}

export { ToolError }

/** Characters of text a result carries at most (an agent's context is finite). */
export const MAX_TEXT = 100_000

/** Records of each resource get_data shows when a data set is too big to show whole. */
const MAX_RECORDS = 100

const sandboxField = () =>
  sandboxIdSchema()
    .optional()
    .describe(
      'An X-Sandbox-Id: that sandbox (created on first use); the default sandbox when left out.',
    )

/** A tool's input: the fields given, and `sandbox`. */
const withSandbox = (shape: z.ZodRawShape) => () =>
  z.strictObject({ ...shape, sandbox: sandboxField() })

const sandboxHeaders = (args: Record<string, unknown>): Record<string, string> =>
  typeof args.sandbox === 'string' ? { 'x-sandbox-id': args.sandbox } : {}

/**
 * How deep an answer may nest and still be parsed: a body's own levels (a request's or an
 * override's, up to {@link MAX_JSON_DEPTH}) inside the few the control API wraps it in (the
 * envelope, a list, an entry, `requestBody`): a journal holding a body 62 levels deep is read.
 */
const MAX_ANSWER_DEPTH = MAX_JSON_DEPTH + 16

/**
 * An answer's body: its JSON, or its text (also for JSON nested deeper than that: a proxied
 * answer 500,000 levels deep overflowed the stack of what writes the tool's result).
 */
function bodyOf(answer: Answer): unknown {
  if (answer.text === '') return null
  if (jsonDepthExceeds(answer.text, MAX_ANSWER_DEPTH)) return answer.text
  try {
    return JSON.parse(answer.text)
  } catch {
    return answer.text
  }
}

/** Text for the agent, cut to {@link MAX_TEXT} characters (saying so). */
export function clipped(text: string): string {
  return text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT)}\n…[cut: ${text.length} characters in all]`
    : text
}

/**
 * A call to the control API: its envelope's `data`, or a {@link ToolError} with its message
 * (after `field: ` when the tool's input `field` named what the control API did not find).
 */
async function control(
  target: Target,
  method: string,
  path: string,
  args: Record<string, unknown>,
  body?: unknown,
  field?: string,
): Promise<unknown> {
  const answer = await target.send(
    method,
    `/__sandbox${path}`,
    {
      ...sandboxHeaders(args),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  )
  if (answer.status === 204) return null
  const envelope = bodyOf(answer)
  // A shop-sandbox with its control API off (--no-control) has no route for it: not a field's fault.
  const off = answer.status === 404 && isEnvelope(envelope) && envelope.message.startsWith(NO_ROUTE)
  if (!isEnvelope(envelope) || off)
    throw new ToolError(
      `${target.where} is not a shop-sandbox server, or not with its control API on (${method} /__sandbox${path.split('?')[0]} answered ${answer.status}: ${answer.text.slice(0, 200)})`,
    )
  if (answer.status >= 400)
    throw new ToolError(
      `${answer.status === 404 && field ? `${field}: ` : ''}${envelope.message} (${answer.status} / ${envelope.code})`,
    )
  return envelope.data
}

/** The contract's envelope: `{ code, message, data }`. */
function isEnvelope(value: unknown): value is { code: number; message: string; data: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'number' &&
    typeof (value as { message?: unknown }).message === 'string' &&
    'data' in value
  )
}

/** A control answer's data as an object, or a {@link ToolError} saying what came instead. */
export async function controlObject(
  target: Target,
  method: string,
  path: string,
  args: Record<string, unknown>,
  body?: unknown,
  field?: string,
): Promise<Record<string, unknown>> {
  const data = await control(target, method, path, args, body, field)
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ToolError(
      `${target.where} answered ${method} /__sandbox${path.split('?')[0]} with no object: is it a shop-sandbox server?`,
    )
  return data as Record<string, unknown>
}

const json = (value: unknown) => clipped(JSON.stringify(value, null, 2))

/**
 * The API's fixed token for a role, from `GET /__sandbox`: the one whose account has that role
 * in the scenario's data (`sandbox-admin-token`, `sandbox-member-token`), whatever the account
 * has become since (a demoted admin's token is still the one `as: 'admin'` sends).
 */
async function tokenFor(target: Target, as: string, args: Record<string, unknown>) {
  const info = (await controlObject(target, 'GET', '', args)) as {
    api?: { tokens?: Array<{ token: string; role?: string }> }
  }
  const token = info.api?.tokens?.find((one) => one.role === as)?.token
  if (!token) throw new ToolError(`as: this API has no fixed ${as} token; give a token instead`)
  return token
}

/** A `.` or `..` segment, written out or percent-encoded: the URL parser would resolve it away. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)(?:\.|%2e)?(?:\/|$)/i

/** Headers the HTTP client sets itself (framing, the connection, the host): not a caller's to send. */
const CLIENT_HEADERS = new Set([...FRAMING_HEADERS, 'expect', 'host'])

const overrideIdRule = 'must be an override id (a whole number from 1) or "all"'

const queryValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])

/** What call_api takes: a request to the API, as a client would send it. */
const callInput = () =>
  z
    .strictObject({
      method: methodSchema().describe(`${overrideMethods.join(', ')}, in any case.`),
      path: z
        .string()
        .max(2000)
        .regex(/^\/[^?#\s]*$/, 'must be a path starting with / (like /users/2), without a query')
        .refine((path) => !path.startsWith('//'), 'must not start with //')
        .refine((path) => !DOT_SEGMENT.test(path), 'must not hold a . or .. segment (nor %2e)')
        // A URL reads a backslash as a slash: /users\..\__sandbox would be /__sandbox.
        .refine((path) => !path.includes('\\'), 'must not hold a backslash (a URL reads it as /)')
        .refine(
          (path) => !/^\/__sandbox(?:\/|$)/.test(path),
          'is the control API: the other tools act on it (get_data, add_override, read_journal…)',
        )
        .describe('Relative to the base path, e.g. /users/2/orders.'),
      query: holdingNames(z.record(z.string().max(200), queryValue), MAX_CONDITIONS, 'parameters')
        .optional()
        .describe('Query parameters; a list is sent comma-separated (fields: ["id", "name"]).'),
      body: z
        .unknown()
        .optional()
        .describe('A JSON body (sent with Content-Type: application/json).'),
      as: z
        .enum(['admin', 'member', 'anonymous'])
        .optional()
        .describe("Who calls: the API's fixed admin or member token, or no token (default admin)."),
      token: z
        .string()
        .max(4096)
        .regex(/^[\x21-\x7e]+$/, 'must be a token: visible ASCII characters, no spaces')
        .optional()
        .describe('A bearer token instead (from POST /sessions).'),
      headers: holdingNames(
        z.record(z.string(), z.string()).superRefine((headers, context) => {
          for (const [name, value] of Object.entries(headers)) {
            const problem =
              headerNameProblem(name) ??
              headerValueProblem(value) ??
              (CLIENT_HEADERS.has(name.toLowerCase())
                ? 'is set by the HTTP client itself, not by a caller'
                : undefined)
            if (problem) context.addIssue({ code: 'custom', path: [name], message: problem })
          }
        }),
        MAX_CONDITIONS,
        'headers',
      )
        .optional()
        .describe('More request headers (Prefer, X-Sandbox-Delay, X-Request-Id…).'),
      sandbox: sandboxField(),
    })
    .superRefine((call, context) => {
      // Two callers named: which one calls would be a guess.
      if (call.as !== undefined && call.token !== undefined)
        context.addIssue({
          code: 'custom',
          path: ['token'],
          message: 'give as or token, not both',
        })
      if (call.body !== undefined && (call.method === 'GET' || call.method === 'HEAD'))
        context.addIssue({
          code: 'custom',
          path: ['body'],
          message: `a ${call.method} request has no body`,
        })
    })

export const tools: readonly Tool[] = [
  {
    name: 'describe_api',
    description:
      "The API the sandbox serves: its resources with their fields and query rules, its routes, business codes and fixed tokens, and the sandbox's scenarios.",
    input: withSandbox({}),
    async run(args, target) {
      const described = await describeApi(target, (method, path) =>
        controlObject(target, method, path, args),
      )
      return { structured: described.structured, text: clipped(described.markdown) }
    },
  },
  {
    name: 'call_api',
    description:
      'Sends a request to the API as the admin, the member, nobody or a token, and answers its exact status, headers and body (a 4xx is an answer, not an error).',
    input: callInput,
    async run(args, target) {
      const {
        method,
        path,
        query,
        body,
        as = 'admin',
        token,
        headers,
      } = args as z.output<ReturnType<typeof callInput>>
      const search = new URLSearchParams()
      for (const [name, value] of Object.entries(query ?? {}))
        search.append(name, Array.isArray(value) ? value.join(',') : String(value))
      const bearer = token ?? (as === 'anonymous' ? null : await tokenFor(target, as, args))
      const sent = `${target.basePath}${path}${search.size > 0 ? `?${search}` : ''}`
      // The caller's headers win, whatever their case (an Authorization of its own, say).
      const given = Object.fromEntries(
        Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      )
      const answer = await target
        .send(
          method,
          sent,
          {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
            ...sandboxHeaders(args),
            ...given,
          },
          body === undefined ? undefined : JSON.stringify(body),
        )
        .catch((error: unknown) => {
          // A dropped connection is an answer here (status 0), in process and with --url alike.
          if (error instanceof ConnectionDropped) return noAnswer()
          throw error
        })
      const shown = sent.length > 300 ? `${sent.slice(0, 300)}…` : sent
      // The text tells what the structured result does, for agents that read only the text:
      // the status, each header as HTTP writes it, a blank line, the body.
      const head =
        answer.status === 0
          ? `no answer to ${method} ${shown}: the connection was dropped (a drop override, an override answering a 1xx, or dropRate does this on purpose)`
          : [
              `${answer.status} for ${method} ${shown}`,
              ...Object.entries(answer.headers).flatMap(([name, value]) =>
                (Array.isArray(value) ? value : [value]).map((one) => `${name}: ${one}`),
              ),
            ].join('\n')
      return {
        structured: { status: answer.status, headers: answer.headers, body: bodyOf(answer) },
        text: clipped(`${head}\n\n${answer.text}`),
      }
    },
  },
  {
    name: 'get_data',
    description:
      "The sandbox's data as one document (each resource's records and the id sequences), or one resource's records.",
    input: withSandbox({
      resource: z.string().max(100).optional().describe('One resource, e.g. orders.'),
    }),
    async run(args, target) {
      // Each resource's first records only, and how many there are (`big`'s whole document,
      // 8.5 MB, was read and measured at every call: 180-390 ms of the loop).
      const document = (await controlObject(
        target,
        'GET',
        `/db?limit=${MAX_RECORDS}`,
        args,
      )) as Record<string, unknown[]>
      const { counts } = (await controlObject(target, 'GET', '', args)) as {
        counts: Record<string, number>
      }
      const names = Object.keys(document).filter((name) => name !== 'nextIds')
      if (typeof args.resource === 'string' && !names.includes(args.resource))
        throw new ToolError(
          `resource: no resource named ${args.resource.slice(0, 100)} (resources: ${names.join(', ')})`,
        )
      const chosen = typeof args.resource === 'string' ? [args.resource] : names
      // A big data set (the big scenario: 31,000 records) is more than an agent can read: each
      // resource's first records, and how many there are in all (call_api pages through the rest).
      const structured: Record<string, unknown> = {}
      const cut: string[] = []
      for (const name of chosen) {
        const records = document[name] ?? []
        structured[name] = records
        const total = counts[name] ?? records.length
        if (total > records.length) cut.push(`${name}: first ${records.length} of ${total}`)
      }
      if (typeof args.resource !== 'string') structured.nextIds = document.nextIds
      if (cut.length > 0) structured.cut = cut
      const shown = typeof args.resource === 'string' ? structured[args.resource] : structured
      const note =
        cut.length > 0 ? `\n(cut: ${cut.join('; ')}; page through the rest with call_api)` : ''
      return { structured, text: `${json(shown)}${note}` }
    },
  },
  {
    name: 'list_scenarios',
    description:
      'The named scenarios the sandbox can be put in (name, description, what each sets), and the one it is in.',
    input: withSandbox({}),
    async run(args, target) {
      const [list, current] = await Promise.all([
        controlObject(target, 'GET', '/scenarios?pageSize=100', args),
        controlObject(target, 'GET', '/scenario', args),
      ])
      const scenarios = (list as { list: Array<{ name: string; description: string }> }).list
      const name = (current as { scenario: { name: string } }).scenario.name
      return {
        structured: { current: name, scenarios },
        text: scenarios
          .map((one) => `${one.name === name ? '* ' : '  '}${one.name}: ${one.description}`)
          .join('\n'),
      }
    },
  },
  {
    name: 'use_scenario',
    description:
      "Puts the sandbox in a named scenario: its data, overrides and settings replace the sandbox's (sessions end; the journal stays).",
    input: () => withSandbox(scenarioChoiceSchema().shape)(),
    async run(args, target) {
      const data = await controlObject(
        target,
        'PUT',
        '/scenario',
        args,
        { name: args.name },
        'name',
      )
      return { structured: data as Record<string, unknown>, text: json(data) }
    },
  },
  {
    name: 'add_override',
    description:
      'Makes a route answer something else (CONTRACT C2): method, path (a route template or a concrete path, or one the API lacks), query, headers, body conditions, times, and a response (status, data, body, headers, delayMs, drop) or a sequence of responses.',
    input: () => withSandbox(overrideInputSchema().shape)(),
    async run(args, target) {
      const { sandbox: _, ...override } = args
      const stored = await controlObject(target, 'POST', '/overrides', args, override)
      return { structured: stored as Record<string, unknown>, text: json(stored) }
    },
  },
  {
    name: 'list_overrides',
    description: 'The overrides, oldest first, with remaining (counted ones) and next (sequences).',
    input: withSandbox({}),
    async run(args, target) {
      // Every one, a page of the control API's largest at a time (it lists 100 a page).
      const overrides: unknown[] = []
      for (let number = 1; ; number++) {
        const page = (await controlObject(
          target,
          'GET',
          `/overrides?pageSize=100&page=${number}`,
          args,
        )) as { list: unknown[]; total: number }
        overrides.push(...page.list)
        if (page.list.length === 0 || overrides.length >= page.total)
          return { structured: { overrides, total: page.total }, text: json(overrides) }
      }
    },
  },
  {
    name: 'remove_override',
    description: 'Removes one override by id, or all of them.',
    input: withSandbox({
      id: z
        .union([
          z
            .int({ error: overrideIdRule })
            .min(1, { error: overrideIdRule })
            .max(2 ** 31 - 1, { error: overrideIdRule }),
          z.literal('all', { error: overrideIdRule }),
        ])
        .describe('An override id, or "all".'),
    }),
    async run(args, target) {
      await control(
        target,
        'DELETE',
        args.id === 'all' ? '/overrides' : `/overrides/${args.id}`,
        args,
        undefined,
        'id',
      )
      return {
        structured: { removed: args.id },
        text: args.id === 'all' ? 'every override removed' : `override ${args.id} removed`,
      }
    },
  },
  {
    name: 'read_journal',
    description:
      'The requests the sandbox answered, with their headers, bodies, answers, the override that answered or the closest one that did not (nearMiss), and the scenario; filtered by method, path (a concrete path or a route template) and status.',
    input: () =>
      withSandbox(
        Object.fromEntries(
          Object.entries(journalQuery()).map(([name, parameter]) => [
            name,
            parameter.schema.optional().describe(parameter.description ?? name),
          ]),
        ),
      )(),
    async run(args, target) {
      const search = new URLSearchParams()
      for (const name of Object.keys(journalQuery()))
        if (args[name] !== undefined) search.set(name, String(args[name]))
      const page = await controlObject(target, 'GET', `/requests?${search}`, args)
      return { structured: page as Record<string, unknown>, text: json(page) }
    },
  },
  {
    name: 'get_settings',
    description: 'The runtime settings: delay, errorRate, dropRate, strict, auth.',
    input: withSandbox({}),
    async run(args, target) {
      const config = await controlObject(target, 'GET', '/config', args)
      return { structured: config as Record<string, unknown>, text: json(config) }
    },
  },
  {
    name: 'set_settings',
    description:
      'Changes runtime settings: delay (ms, or { min, max }, or "100-400"), errorRate and dropRate (0-1), strict, auth.',
    input: () => withSandbox(runtimeConfigPatchSchema().shape)(),
    async run(args, target) {
      const { sandbox: _, ...changes } = args
      const config = await controlObject(target, 'PATCH', '/config', args, changes)
      return { structured: config as Record<string, unknown>, text: json(config) }
    },
  },
  {
    name: 'reset',
    description:
      'Back to the scenario the sandbox is in: everything (data, sessions, journal, overrides, settings), or the data only.',
    input: withSandbox({
      what: z.enum(['all', 'data']).optional().describe('all (default) or data.'),
    }),
    async run(args, target) {
      if (args.what === 'data') await control(target, 'DELETE', '/db', args)
      else await control(target, 'POST', '/reset', args)
      return {
        structured: { reset: args.what ?? 'all' },
        text: args.what === 'data' ? 'data back to the scenario' : 'sandbox back to its scenario',
      }
    },
  },
]

/** The JSON Schema of a tool's input, as MCP lists it (draft 7, what MCP clients validate with). */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.input(), {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
  }) as Record<string, unknown>
  return schema
}

/** How deep an input may nest (objects and arrays), as a body may (C3): more is refused before it is read. */
const MAX_DEPTH = MAX_JSON_DEPTH

/** Characters of structured content a result carries at most (beside its text). */
export const MAX_STRUCTURED = 2 * MAX_TEXT

/** Whether `value` nests deeper than `limit` (iteratively: no recursion to overflow). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return false
}

/**
 * A result whose structured content fits {@link MAX_STRUCTURED}; past it, the fields that are
 * large are left out (a call's status and headers stay) and `cut` says so: the text has the
 * start of it.
 */
function bounded(result: ToolResult): ToolResult {
  const size = JSON.stringify(result.structured).length
  if (size <= MAX_STRUCTURED) return result
  const kept = Object.fromEntries(
    Object.entries(result.structured).filter(
      ([, value]) => (JSON.stringify(value) ?? '').length <= 2000,
    ),
  )
  return {
    ...result,
    structured: {
      ...kept,
      cut: `${size} characters of structured content, more than ${MAX_STRUCTURED}: its larger fields are left out; the text has the start`,
    },
  }
}

/** Runs a tool: its input checked first (an error result naming each bad field), then the call. */
export async function callTool(tool: Tool, args: unknown, target: Target): Promise<ToolResult> {
  try {
    if (deeperThan(args, MAX_DEPTH)) {
      // Named by the field that nests too deep (`body`), as the other problems are.
      const field = Object.entries(args as Record<string, unknown>).find(([, value]) =>
        deeperThan(value, MAX_DEPTH - 1),
      )?.[0]
      return refused([`${field ?? 'input'}: nests deeper than ${MAX_DEPTH} levels`])
    }
    // Checked as the control API checks its bodies: zod reads only the fields the input has (an
    // input of 200,000 unknown keys held the loop 1.4 s, a problem text and an issue each).
    const checked = checkBody(tool.input(), args ?? {}, CLOSED, undefined, 'input')
    if (!checked.ok) return refused(checked.problems, checked.more)
    return bounded(await tool.run(checked.data as Record<string, unknown>, target))
  } catch (error) {
    const message =
      error instanceof ToolError ? error.message : String((error as Error).message ?? error)
    return { structured: { error: message }, text: message, isError: true }
  }
}

/** How a tool's input is checked: fields it does not have are errors. */
const CLOSED = { strict: false, closed: true, readOnly: [] } as const

/**
 * An error result naming the input's problems: as {@link shownProblems} shows them over HTTP, and
 * how many more (`uncounted`: found past them and never written out).
 */
export const refused = (problems: string[], uncounted = 0): ToolResult => {
  const { shown, more } = shownProblems(problems, uncounted)
  return {
    structured: {
      error: 'invalid input',
      problems: shown,
      ...(more > 0 ? { more } : {}),
    },
    text: `Invalid input: ${problemList(problems, uncounted)}`,
    isError: true,
  }
}
