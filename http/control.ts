import * as z from 'zod'
import type { ControlContext, ControlHost, ControlOperation } from './control-types.js'
import { pageOf } from './control-types.js'
import { scenarioRoutes } from './scenario-routes.js'
import type { Catalog } from '../resources/catalog.js'
import type { Row } from '../resources/define.js'
import { isAdmin } from './auth.js'
import {
  checkSnapshotSliced,
  documentSchemas,
  unknownCollection,
  unwrapped,
} from '../resources/document.js'
import { documentRoom } from '../resources/seed.js'
import { inSlices, inTurn, LARGE_TEXTS_AT_ONCE, SLICE } from '../db/progress.js'
import type { QuerySchema } from '../resources/query.js'
import { integerQuery, pagingSchema, parseQuery } from '../resources/query.js'
import { timestampSchema } from '../contract/fields.js'
import { documented } from '../contract/registry.js'
import { once } from '../contract/once.js'
import type { SandboxInstance } from '../state/instance.js'
import { runtimeConfigPatchSchema, runtimeConfigSchema } from '../state/runtime-config.js'
import { ApiError } from '../contract/api-error.js'
import { readJsonBody, validateBody } from './body.js'
import type { ListPayload } from '../contract/envelope.js'
import { noContent, success, successOf } from '../contract/envelope.js'
import { documentText } from '../contract/json-text.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { madeDurable } from './durable.js'
import type { Route } from './router.js'
import { CONTROL_PREFIX } from './context.js'
import { allowHeader, operationFor, Router } from './router.js'
import { clip, plainInteger } from '../contract/params.js'
import type { JournalFilter } from '../state/journal.js'
import { filterUnder } from '../state/journal.js'
import {
  MAX_PATH,
  OverrideBoundError,
  overrideInputSchema,
  overrideSchema,
} from '../state/overrides/index.js'
import { limitFlag } from '../state/limits.js'

/** One request of the journal (`GET /__sandbox/requests`). */
const journalEntrySchema = once(() =>
  documented(
    z.object({
      id: z.int(),
      at: timestampSchema,
      method: z.string(),
      path: z.string(),
      query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
      status: documented(z.int(), {
        description: 'HTTP status; 0 when the connection was dropped.',
      }),
      durationMs: z.number(),
      requestBody: documented(z.unknown(), {
        description: `The JSON body, passwords redacted (cut past ${limitFlag('journalBodyBytes')}).`,
      }).optional(),
      responseBody: documented(z.unknown(), {
        description: `The response body as sent (cut past ${limitFlag('journalBodyBytes')}).`,
      }).optional(),
      responseCode: z.int().nullable(),
      overrideId: documented(z.int(), {
        description: 'The override that answered this request (CONTRACT C2), when one did.',
      }).optional(),
      requestHeaders: documented(z.record(z.string(), z.string()), {
        description:
          'The request headers, lower-case names; Authorization and Cookie values redacted to their scheme (`Bearer ***`).',
      }),
      responseHeaders: documented(z.record(z.string(), z.string()), {
        description: 'The answer headers, lower-case names; Set-Cookie values redacted.',
      }),
      nearMiss: documented(
        z.object({
          overrideId: z.int(),
          reason: documented(z.string(), {
            description:
              'The first condition it failed: method, path, query.<name>, headers.<name> or body.<path>.',
          }),
        }),
        {
          description:
            'On a path the API lacks that no override matched: the override the request came closest to (CONTRACT C2).',
        },
      ).optional(),
      scenario: documented(z.string(), {
        description: 'The scenario the sandbox was in when it answered (CONTRACT C5).',
      }),
      proxied: documented(z.literal(true), {
        description:
          "Answered by the proxy target (the server's proxy option), or passed through to the network in MSW (CONTRACT C4).",
      }).optional(),
    }),
    { id: 'JournalEntry' },
  ),
)

/** `GET /__sandbox/sandboxes`: paging, and a name to look for (the console's picker). */
const sandboxesQuery = once((): QuerySchema => ({
  ...pagingSchema(),
  search: {
    schema: z.string().min(1).max(64),
    read: (raw) => raw,
    problem: (raw) => `search must be 1-64 characters of a sandbox name, got '${clip(raw)}'`,
    description:
      'Only sandboxes whose X-Sandbox-Id (or "default") contains this, case-insensitively.',
  },
}))

/** `GET /__sandbox/db?limit=`: each resource's first records only. */
const dbQuery = once((): QuerySchema => ({
  limit: {
    ...integerQuery('limit', 1, 1_000_000),
    description: "Each resource's first this many records (default: all).",
  },
}))

/** The filters of the request journal (CONTRACT C2), beside `page` and `pageSize`. */
export const journalQuery = once((): QuerySchema => ({
  ...pagingSchema(),
  method: {
    schema: z
      .string({ error: 'must be a method name' })
      .regex(/^[A-Za-z]{1,20}$/, 'must be a method name'),
    read: (raw) => raw,
    problem: (raw) => `method must be a method name, got '${clip(raw)}'`,
    description: 'e.g. POST',
  },
  path: {
    schema: z
      .string()
      .regex(/^\//, { error: 'must start with /' })
      .max(MAX_PATH, { error: `must be at most ${MAX_PATH} characters` }),
    read: (raw) => raw,
    problem: (raw) =>
      raw.startsWith('/')
        ? `path must be at most ${MAX_PATH} characters, got ${raw.length}`
        : `path must start with /, got '${clip(raw)}'`,
    description:
      'A concrete path (`/users/5`) or a route template (`/users/{user_id}`), relative to the base path.',
  },
  status: integerQuery('status', 0, 599),
  order: {
    schema: z.enum(['asc', 'desc']),
    read: (raw) => raw,
    problem: (raw) => `order must be asc or desc, got '${clip(raw)}'`,
    description: 'asc (default): oldest first; desc: newest first.',
  },
}))

/**
 * `sandbox.requests()`'s filter: the journal's filters as values, checked as the control API
 * checks them (a filter of a typo would match nothing, and a test expecting none would pass).
 */
export const journalFilterSchema = once(() => {
  const { method, path, status, order } = journalQuery()
  return z.strictObject({
    method: method!.schema.optional(),
    path: path!.schema.optional(),
    status: status!.schema.optional(),
    order: order!.schema.optional(),
  })
})

const compiled = new WeakMap<Catalog, Router<ControlOperation>>()

/** The control API of a catalog's sandboxes (CONTRACT C1, C2), compiled once. */
export function controlRouter(catalog: Catalog): Router<ControlOperation> {
  let router = compiled.get(catalog)
  if (!router)
    compiled.set(catalog, (router = new Router<ControlOperation>(controlRoutes(catalog))))
  return router
}

function controlRoutes(catalog: Catalog): Route<ControlOperation>[] {
  const countsSchema = documented(
    z.object(Object.fromEntries(catalog.names.map((name) => [name, z.int()]))),
    {
      id: 'DbCounts',
    },
  )
  const counts = (instance: SandboxInstance) => instance.store.counts()
  const dbDocumentSchema = documentSchemas(catalog).document

  const infoSchema = documented(
    z.object({
      sandboxId: documented(z.string().nullable(), {
        description: 'The X-Sandbox-Id served; null for the default sandbox.',
      }),
      scenario: documented(z.string(), {
        description: 'The scenario it is in (CONTRACT C5): what a reset returns it to.',
      }),
      counts: countsSchema,
      config: runtimeConfigSchema(),
      requests: documented(z.int(), { description: 'Entries in the request journal.' }),
      api: documented(
        z.object({
          title: z.string(),
          basePath: z.string(),
          resources: z.array(z.object({ name: z.string(), singular: z.string() })),
          tokens: z.array(
            z.object({
              token: z.string(),
              userId: z.int(),
              description: z.string().optional(),
              admin: z.boolean(),
              role: documented(z.enum(['admin', 'member']), {
                description:
                  "The account's role in the scenario's data (what the MCP tools' `as` picks the token by); `admin` is the role now.",
              }),
            }),
          ),
        }),
        {
          description:
            "The API this sandbox serves: where its resources live and its fixed tokens (as the start banner prints them), with whether each token's account is an admin now. The console edits records through the API with them.",
        },
      ),
      persistence: documented(
        z
          .object({
            ok: z.boolean(),
            error: z.string().nullable(),
            unsavedChanges: z.boolean(),
            lastSavedAt: timestampSchema.nullable(),
          })
          .nullable(),
        {
          description:
            'The data file (the server with a data file, default sandbox); null without one.',
        },
      ),
    }),
    { id: 'SandboxInfo' },
  )

  const sandboxSummarySchema = documented(
    z.object({
      sandboxId: z.string().nullable(),
      scenario: z.string(),
      counts: countsSchema,
      requests: z.int(),
      overrides: z.int(),
    }),
    { id: 'SandboxSummary' },
  )

  return [
    ...scenarioRoutes(),
    {
      path: '/',
      operations: {
        GET: {
          docs: {
            operationId: 'getSandboxInfo',
            summary: 'This sandbox at a glance',
            success: { status: 200, data: infoSchema },
          },
          run: ({ instance, basePath }) =>
            success({
              sandboxId: instance.name,
              scenario: instance.scenario.name,
              counts: counts(instance),
              config: instance.config,
              requests: instance.journal.size,
              api: apiInfo(catalog, instance, basePath),
              persistence: instance.persistence?.status ?? null,
            }),
        },
        DELETE: {
          docs: {
            operationId: 'resetSandbox',
            summary: 'Reset everything of this sandbox',
            description:
              'Data back to the seed, sessions ended, journal emptied, overrides removed, settings back to the start: what `sandbox.reset()` does for one sandbox. `DELETE /__sandbox/db` resets only the data.',
            success: { status: 204, data: null },
          },
          replaces: true,
          async run({ instance }) {
            await instance.inOrder(() => instance.reset())
            await madeDurable(instance)
            return noContent()
          },
        },
      },
    },
    {
      path: '/sandboxes',
      operations: {
        GET: {
          docs: {
            operationId: 'listSandboxes',
            summary: 'The live sandboxes: the default one, then each X-Sandbox-Id',
            success: { status: 200, data: sandboxSummarySchema, list: true },
            query: sandboxesQuery(),
          },
          run({ sandboxes, request }) {
            const { search } = parseQuery(sandboxesQuery(), request.url.searchParams, false) as {
              search?: string
            }
            const needle = search?.toLowerCase()
            const found = needle
              ? sandboxes().filter((one) => (one.name ?? 'default').toLowerCase().includes(needle))
              : sandboxes()
            const all = found.map((one) => ({
              sandboxId: one.name,
              scenario: one.scenario.name,
              counts: counts(one),
              requests: one.journal.size,
              overrides: one.overrides.size,
            }))
            return pageOf(all, request.url.searchParams)
          },
        },
      },
    },
    {
      path: '/db',
      operations: {
        GET: {
          docs: {
            operationId: 'getSandboxData',
            summary: 'The data as one document, with its id sequences',
            description:
              "With `limit`, each resource's first `limit` records (oldest first) instead of all: a look at a big data set without reading it whole (`GET /__sandbox` counts them).",
            success: { status: 200, data: dbDocumentSchema },
            query: dbQuery(),
          },
          // With the id sequences, so a download loaded back continues where it was (B1).
          run: ({ instance, request }) => {
            const { limit } = parseQuery(dbQuery(), request.url.searchParams, false)
            const snapshot = instance.store.snapshot()
            const document =
              typeof limit === 'number'
                ? {
                    ...Object.fromEntries(
                      catalog.names.map((name) => [name, snapshot[name]!.slice(0, limit)]),
                    ),
                    nextIds: snapshot.nextIds,
                  }
                : snapshot
            const records = catalog.names.reduce(
              (sum, name) =>
                sum +
                Math.min(snapshot[name]!.length, typeof limit === 'number' ? limit : Infinity),
              0,
            )
            if (records <= SLICE) return success(document)
            // A large one is made in slices, one at a time (C3: the loop given back, memory bounded).
            const made = inTurn(async () =>
              successOf(document, await inSlices(documentText(document, SLICE))),
            )
            if (made === null)
              throw ApiError.of(
                'rateLimited',
                `${LARGE_TEXTS_AT_ONCE} large data documents are being made or waiting already; retry shortly`,
              )
            return made
          },
        },
        PUT: {
          docs: {
            operationId: 'replaceSandboxData',
            summary: 'Replace all data',
            description:
              'Every record and every reference is validated first, and a collection the API lacks is refused; on a problem (422) nothing changes. The envelope `GET /__sandbox/db` answers is taken too: what GET gives, PUT takes back.',
            success: { status: 200, data: countsSchema },
            body: dbDocumentSchema,
          },
          replaces: true,
          async run({ instance, readJson }) {
            const seen: { bytes?: number } = {}
            // Read, parsed, checked and indexed with room taken for what it becomes (C3).
            const room = { release: () => {} }
            try {
              const body = await readJson(instance.limits.maxDocumentBytes, seen, (bytes) => {
                const taken = documentRoom(bytes)
                if (taken) room.release = taken
                else
                  throw ApiError.of(
                    'rateLimited',
                    'too many data documents are being read at once for the memory there is; retry shortly',
                  )
              })
              await instance.replacing(async (turn) => {
                const document = unwrapped(body)
                const stranger = unknownCollection(catalog, document)
                if (stranger) throw ApiError.invalid([stranger])
                const check = await checkSnapshotSliced(catalog, document)
                if (!check.ok) throw ApiError.invalid([check.problem])
                // Frozen and indexed in slices too: replacing then takes no time (C3).
                const ready = await inSlices(instance.store.preparing(check.document, SLICE))
                await turn()
                instance.replaceData(ready, seen.bytes ?? 0)
              })
            } finally {
              room.release()
            }
            await madeDurable(instance)
            return success(counts(instance))
          },
        },
        DELETE: {
          docs: {
            operationId: 'resetSandboxData',
            summary: 'Reset the data to the seed',
            success: { status: 204, data: null },
          },
          replaces: true,
          async run({ instance }) {
            await instance.inOrder(() => instance.resetData())
            await madeDurable(instance)
            return noContent()
          },
        },
      },
    },
    {
      path: '/requests',
      operations: {
        GET: {
          docs: {
            operationId: 'listSandboxRequests',
            summary: 'The request journal, oldest first (order=desc: newest first)',
            description: `The last API requests of this sandbox (see ${limitFlag('journalSize')}), with their headers; \`page\` and \`pageSize\` as for collections; \`method\`, \`path\` (a concrete path or a route template, relative to the base path) and \`status\` filter, and \`total\` counts the matches.`,
            success: { status: 200, data: journalEntrySchema(), list: true },
            query: journalQuery(),
          },
          run({ instance, request, basePath }) {
            const { page, pageSize, ...filter } = parseQuery(
              journalQuery(),
              request.url.searchParams,
              false,
            ) as unknown as { page: number; pageSize: number } & JournalFilter
            const start = (page - 1) * pageSize
            const { list, total } = instance.journal.page(
              filterUnder(filter, basePath),
              start,
              start + pageSize,
            )
            const payload: ListPayload<unknown> = { list, total, page, pageSize }
            return success(payload)
          },
        },
        DELETE: {
          docs: {
            operationId: 'clearSandboxRequests',
            summary: 'Clear the request journal',
            success: { status: 204, data: null },
          },
          run({ instance }) {
            instance.journal.clear()
            return noContent()
          },
        },
      },
    },
    {
      path: '/overrides',
      operations: {
        GET: {
          docs: {
            operationId: 'listSandboxOverrides',
            summary: 'The overrides, oldest first',
            description: 'With `remaining` for counted ones (CONTRACT C2).',
            success: { status: 200, data: overrideSchema(), list: true },
            query: pagingSchema(),
          },
          run({ instance, request }) {
            return pageOf(instance.overrides.list(), request.url.searchParams)
          },
        },
        POST: {
          docs: {
            operationId: 'createSandboxOverride',
            summary: 'Make a route answer something else',
            description: `Matches by method, path (template or concrete, relative to the base path), query, headers and JSON body; the newest match wins; \`times\` counts matching requests; \`responses\` answers a sequence. On an API path it applies after routing, authentication and permission; on a path the API lacks it answers without a token. An overridden request changes no data. Each sandbox keeps at most ${limitFlag('maxOverrides')} overrides taking ${limitFlag('overridesBytes')} (413 for one too large, 429 when full).`,
            success: { status: 201, data: overrideSchema() },
            body: overrideInputSchema(),
          },
          async run({ instance, readJson }) {
            const body = await readJson()
            // Weighed first, the cheapest walk: one too large is refused before it is checked
            // (350,000 `{}` in an answer were walked three times, ~0.8 s, before the 413).
            bounded(() => instance.overrides.weigh(body))
            const input = validateBody(overrideInputSchema(), body, {
              strict: false,
              closed: true,
              readOnly: [],
            })
            return success(
              bounded(() => instance.overrides.add(frozenAnswers(input))),
              201,
            )
          },
        },
        DELETE: {
          docs: {
            operationId: 'clearSandboxOverrides',
            summary: 'Remove every override',
            success: { status: 204, data: null },
          },
          run({ instance }) {
            instance.overrides.clear()
            return noContent()
          },
        },
      },
    },
    {
      path: '/overrides/{override_id}',
      operations: {
        DELETE: {
          docs: {
            operationId: 'deleteSandboxOverride',
            summary: 'Remove one override',
            success: { status: 204, data: null },
          },
          run({ instance, request }) {
            const raw = request.url.pathname.split('/').at(-1) ?? ''
            const id = plainInteger(raw)
            if (!instance.overrides.remove(id))
              throw ApiError.of('notFound', `override ${raw.slice(0, 40)} not found`)
            return noContent()
          },
        },
      },
    },
    {
      path: '/config',
      operations: {
        GET: {
          docs: {
            operationId: 'getSandboxConfig',
            summary: 'The runtime settings',
            success: { status: 200, data: runtimeConfigSchema() },
          },
          run: ({ instance }) => success(instance.config),
        },
        PATCH: {
          docs: {
            operationId: 'updateSandboxConfig',
            summary: 'Change runtime settings of this sandbox',
            success: { status: 200, data: runtimeConfigSchema() },
            body: runtimeConfigPatchSchema(),
          },
          async run({ instance, readJson }) {
            const changes = validateBody(runtimeConfigPatchSchema(), await readJson(), {
              strict: false,
              closed: true,
              readOnly: [],
            })
            return success(instance.configure(changes))
          },
        },
      },
    },
  ]
}

/** Stores an override in a sandbox: 413 for one larger than its bound, 429 when it is full. */
export function addOverride(
  instance: SandboxInstance,
  input: Parameters<SandboxInstance['overrides']['add']>[0],
) {
  return bounded(() => instance.overrides.add(input))
}

/**
 * An override parsed from a request, its answers frozen at the top (the answer, its body or data):
 * jsonText takes a frozen object for a deep-frozen one and keeps its text, which holds, as no
 * one else holds what was parsed here. An answer is then written once, not at every answer and
 * every listing (58,000 keys: ~50 ms each, C3).
 */
function frozenAnswers<T extends { response?: object; responses?: readonly object[] }>(
  input: T,
): T {
  for (const answer of [input.response, ...(input.responses ?? [])]) {
    if (!answer) continue
    for (const value of [(answer as { body?: unknown }).body, (answer as { data?: unknown }).data])
      if (typeof value === 'object' && value !== null) Object.freeze(value)
    Object.freeze(answer)
  }
  return input
}

/** `run`'s result; an override past its sandbox's bounds 413 (alone) or 429 (full). */
function bounded<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (!(error instanceof OverrideBoundError)) throw error
    throw error.kind === 'too-large'
      ? ApiError.of('payloadTooLarge', error.message)
      : ApiError.of('rateLimited', error.message)
  }
}

/** What `GET /__sandbox` says of the API: where it lives, its resources, its fixed tokens. */
function apiInfo(catalog: Catalog, instance: SandboxInstance, basePath: string) {
  const { accounts } = catalog
  const table = instance.store.table(accounts.resource.name)
  return {
    title: catalog.api.title,
    basePath,
    resources: catalog.resources.map(({ name, singular }) => ({ name, singular })),
    tokens: accounts.tokens.map(({ token, userId, description }) => {
      const account = table.get(userId) as Row | undefined
      const admin = account !== undefined && isAdmin(accounts, account)
      const seeded = (instance.scenario.data()[accounts.resource.name] ?? []).find(
        (row) => row.id === userId,
      )
      const role = seeded !== undefined && isAdmin(accounts, seeded as Row) ? 'admin' : 'member'
      return { token, userId, ...(description ? { description } : {}), admin, role }
    }),
  }
}

/** Handles a request under `/__sandbox` (the path without that prefix). */
export function handleControl(
  request: ApiRequest,
  path: string,
  instance: SandboxInstance,
  host: ControlHost,
): Promise<ApiResponse> {
  const match = controlRouter(host.catalog).match(path)
  if (!match)
    throw ApiError.of('notFound', `no control route ${request.method} ${CONTROL_PREFIX}${path}`)
  // `OPTIONS` without a preflight: the route's methods, as on the API's routes (B2).
  if (request.method === 'OPTIONS')
    return Promise.resolve(noContent({ allow: allowHeader(match.route) }))
  const operation = operationFor(match.route, request.method, CONTROL_PREFIX)
  if (operation.replaces) return replace(operation, request, instance, host)
  const ahead = instance.replacement
  const run = () => operation.run({ ...host, request, instance, readJson: bodyReader(request) })
  return ahead ? ahead.then(run) : Promise.resolve(run())
}

const bodyReader =
  (request: ApiRequest): ControlContext['readJson'] =>
  (limit, seen, admit) =>
    readJsonBody(request, { limit, seen, admit })

/**
 * A replacement of the data (a switch, a document, a reset) takes its place in line at once,
 * or once its body is read: had it waited for one still being made, as other requests do, a
 * write sent after it went first (in the first one's data, then replaced by the second). While
 * it reads its body, requests to its sandbox wait for it (`instance.arriving()`): one sent the
 * instant after a switch went before it; and it waits for those that arrived before it.
 */
function replace(
  operation: ControlOperation,
  request: ApiRequest,
  instance: SandboxInstance,
  host: ControlHost,
): Promise<ApiResponse> {
  const { ahead, arrived } = instance.arriving()
  const read = bodyReader(request)
  const run = () => {
    let reads = false
    try {
      return Promise.resolve(
        operation.run({
          ...host,
          request,
          instance,
          readJson: (limit, seen, admit) => {
            reads = true
            const body = read(limit, seen, admit)
            // In line once the operation has gone on from its body (in the same turn of the loop).
            const after = () => void setTimeout(arrived, 0)
            body.then(after, after)
            return body
          },
        }),
      ).finally(arrived)
    } finally {
      // One without a body (a reset) took its place while it ran, or failed at once.
      if (!reads) arrived()
    }
  }
  // After the replacements that arrived before it and still read their body (a switch whose body
  // came later applied after one sent after it, and undid it).
  return ahead ? ahead.then(run) : run()
}
