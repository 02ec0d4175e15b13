import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import type { Json } from './schema-arbitrary.js'
import { arbitraryFor, resolve } from './schema-arbitrary.js'
import { conformanceTo } from '../support/conformance.js'

// Issue 43, scope 4: a fuzzer of the project's own that reads the OpenAPI document the sandbox
// serves, not the code (as Schemathesis does). Positive phase: requests the document calls
// valid, for every operation, as the admin and as the member; each answer must be one the
// document declares for that operation (status, headers, body schema; a `fields=` answer holds
// exactly the named fields) with the contract's business code for its status. Negative phase:
// one part of such a request made invalid (a type, a bound, a format, an unknown field in
// strict mode, a huge or deep body, a wrong media type); each answer must be the contract's
// 4xx for it, never a 5xx. Seeded and bounded here; `npm run fuzz` runs many more.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300)
const SEED = Number(process.env.FUZZ_SEED ?? 43)
const BASE = 'https://api.fuzz.test'
/** A positive integer of more digits than a number holds exactly. */
const LONG_ID = '9'.repeat(20)
const tokens = { admin: 'sandbox-admin-token', member: 'sandbox-member-token' } as const
type Role = keyof typeof tokens

interface Operation {
  method: string
  template: string
  spec: Json
}

interface Answer {
  status: number
  headers: Headers
  text: string
}

type Send = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) => Promise<Answer>

const inProcess = createSandbox({ baseUrl: BASE })
const document = (await (await inProcess.fetch(`${BASE}/openapi.json`)).json()) as Json
const conforms = conformanceTo(document)
const operations: Operation[] = Object.entries(document.paths as Record<string, Json>).flatMap(
  ([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, spec]) => ({ method: method.toUpperCase(), template, spec: spec as Json })),
)
const apiOperations = operations.filter((operation) => !operation.template.startsWith('/__sandbox'))
const controlOperations = operations.filter((operation) =>
  operation.template.startsWith('/__sandbox'),
)

/** Prices: "at most 2 decimals" is said in words (see docs/guide/typed-client.md), so generated as cents. */
const customize = (schema: Json) =>
  schema.type === 'number' && /at most 2 decimals/i.test(String(schema.description ?? ''))
    ? fc
        .integer({
          min: Math.ceil((schema.minimum ?? 0) * 100),
          max: Math.floor((schema.maximum ?? 1e6) * 100),
        })
        .map((cents) => cents / 100)
    : undefined

const parametersOf = (operation: Operation) =>
  ((operation.spec.parameters ?? []) as Json[]).map((parameter) => resolve(document, parameter))

/** A valid request for an operation, as the document describes one. */
function validRequest(operation: Operation, role: Role) {
  const parameters = parametersOf(operation)
  const pathIds = parameters.filter((parameter) => parameter.in === 'path')
  const query = parameters.filter((parameter) => parameter.in === 'query')
  const id = (name: string) =>
    role === 'member' && name === 'user_id'
      ? fc.constantFrom(2, 2, 2, 3)
      : fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: 1, max: 60 }) },
          {
            weight: 1,
            arbitrary: arbitraryFor(document, {
              type: 'integer',
              minimum: 1,
              maximum: Number.MAX_SAFE_INTEGER,
            }),
          },
        )
  const body = (operation.spec.requestBody as Json | undefined)?.content?.['application/json']
    ?.schema as Json | undefined
  return fc.record({
    ids: fc.record(
      Object.fromEntries(
        pathIds.map((parameter) => [parameter.name as string, id(parameter.name as string)]),
      ),
    ),
    query: fc.record(
      Object.fromEntries(
        query.map((parameter) => [
          parameter.name as string,
          arbitraryFor(document, parameter.schema as Json, customize),
        ]),
      ),
      { requiredKeys: [] },
    ),
    body: body
      ? arbitraryFor(document, body, customize).map((value) => JSON.stringify(value))
      : fc.constant(undefined),
    representation: fc.boolean(),
  })
}

type Request =
  fc.Arbitrary<{
    ids: Record<string, unknown>
    query: Record<string, unknown>
    body: string | undefined
    representation: boolean
  }> extends fc.Arbitrary<infer T>
    ? T
    : never

function urlOf(
  operation: Operation,
  request: Pick<Request, 'ids' | 'query'>,
  raw: Record<string, string> = {},
) {
  const path = operation.template.replace(/\{(\w+)\}/g, (_, name: string) =>
    String(request.ids[name]),
  )
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(request.query))
    search.append(name, Array.isArray(value) ? value.join(',') : String(value))
  for (const [name, value] of Object.entries(raw)) search.append(name, value)
  const text = search.toString()
  return text ? `${path}?${text}` : path
}

/** What every answer holds to, whatever was asked: no 5xx, the envelope, the code of its status. */
function checkAnswer(operation: Operation, path: string, answer: Answer) {
  const where = `${operation.method} ${path} → ${answer.status}`
  expect(answer.status, `${where}: ${answer.text.slice(0, 200)}`).toBeLessThan(500)
  expect(answer.headers.get('x-request-id'), where).toBeTruthy()
  if (answer.status === 401) expect(answer.headers.get('www-authenticate'), where).toBe('Bearer')
  if (answer.status === 405) expect(answer.headers.get('allow'), where).toBeTruthy()
  if (answer.text === '') return undefined
  expect(answer.headers.get('content-type'), where).toBe('application/json; charset=utf-8')
  const body = JSON.parse(answer.text) as { code: number; message: string; data: unknown }
  expect(Object.keys(body).sort(), where).toEqual(['code', 'data', 'message'])
  if (answer.status < 300) expect(body.code, where).toBe(0)
  else {
    expect(Math.floor(body.code / 100), `${where}: code ${body.code}`).toBe(answer.status)
    expect(body.data, where).toBeNull()
  }
  conforms(operation.method, new URL(path, BASE), '', answer.status, body, answer.text)
  return body
}

/** The fields a `fields=` answer names, and the records it holds. */
function checkFields(fields: unknown, body: { data: unknown } | undefined, where: string) {
  if (!Array.isArray(fields) || fields.length === 0 || !body) return
  const data = body.data as { list?: unknown[] } | Record<string, unknown>
  const records = Array.isArray((data as { list?: unknown[] }).list)
    ? (data as { list: unknown[] }).list
    : [data]
  for (const record of records)
    expect(Object.keys(record as object).sort(), where).toEqual(
      [...new Set(fields as string[])].sort(),
    )
}

/** One part of a valid request made invalid, and the contract's answer for it (as the admin). */
/** The ways one part of a request to `operation` can be made invalid, each an arbitrary. */
const mutationsOf = (operation: Operation): Array<fc.Arbitrary<Mutation>> => {
  const query = parametersOf(operation).filter((parameter) => parameter.in === 'query')
  const kinds: Array<fc.Arbitrary<Mutation>> = []
  if (query.length > 0)
    kinds.push(
      fc.record({
        kind: fc.constant('query' as const),
        name: fc.constantFrom(...query.map((parameter) => parameter.name as string)),
        value: fc.constantFrom('abc', '-1', '0', '1.5', LONG_ID, '', 'no-such-value', '%00'),
        twice: fc.boolean(),
      }),
    )
  if (/\{\w+\}/.test(operation.template))
    kinds.push(
      fc.record({
        kind: fc.constant('id' as const),
        value: fc.constantFrom('abc', '0', '-1', '1.5', '01', '1e3', LONG_ID, 'create'),
      }),
    )
  if (operation.spec.requestBody !== undefined)
    for (const kind of ['huge', 'deep', 'malformed', 'media', 'type', 'unknown', 'format'] as const)
      kinds.push(fc.constant({ kind }))
  return kinds
}

type Mutation =
  | { kind: 'query'; name: string; value: string; twice: boolean }
  | { kind: 'id'; value: string }
  | { kind: 'huge' | 'deep' | 'malformed' | 'media' | 'type' | 'unknown' | 'format' | 'none' }

/** The statuses and codes the contract gives a mutated request (route → auth → permission → 400 → 413/415/400 → 404 → 422). */
function expectedFor(mutation: Mutation): Array<[number, number]> {
  switch (mutation.kind) {
    case 'query':
      // An owner's id of more digits than a number holds: a positive integer, no one's (B3).
      if (mutation.name === 'userId' && mutation.value === LONG_ID && !mutation.twice)
        return [[200, 0]]
      return [[400, 40000]]
    case 'id':
      // A positive integer of more digits than a number holds: no record has it (B2).
      return mutation.value === LONG_ID ? [[404, 40400]] : [[400, 40000]]
    case 'huge':
      return [[413, 41300]]
    case 'deep':
    case 'malformed':
      return [[400, 40004]]
    case 'media':
      return [[415, 41500]]
    case 'type':
    case 'unknown':
    case 'format':
      return [
        [422, 42200],
        [404, 40400],
      ]
    case 'none':
      return []
  }
}

function fuzz(name: string, send: () => Send, runs: number) {
  describe(name, () => {
    let round = 0
    const sandboxId = () => `fuzz-${Math.floor(round++ / 25)}`

    it(`valid requests for every operation, as the admin and the member, get answers the document declares (${runs} runs)`, async () => {
      const arbitrary = fc
        .tuple(fc.constantFrom(...apiOperations), fc.constantFrom<Role>('admin', 'member'))
        .chain(([operation, role]) =>
          fc.tuple(fc.constant(operation), fc.constant(role), validRequest(operation, role)),
        )
      let answered2xx = 0
      await fc.assert(
        fc.asyncProperty(arbitrary, async ([operation, role, request]) => {
          const path = urlOf(operation, request)
          const headers: Record<string, string> = {
            authorization: `Bearer ${tokens[role]}`,
            'x-sandbox-id': sandboxId(),
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(request.representation ? { prefer: 'return=representation' } : {}),
          }
          const answer = await send()(operation.method, path, headers, request.body)
          const body = checkAnswer(operation, path, answer)
          if (answer.status < 300) answered2xx++
          // The document's query rules are exact: a valid query is never refused.
          if (answer.status === 400)
            expect(body?.message, `${operation.method} ${path}`).not.toMatch(
              /^(?:page|pageSize|status|sort|order|fields|keyword|userId) /,
            )
          if (answer.status < 300)
            checkFields(request.query.fields, body, `${operation.method} ${path}`)
        }),
        { numRuns: runs, seed: SEED, endOnFailure: true },
      )
      expect(answered2xx).toBeGreaterThan(runs / 5)
    }, 120_000)

    it(`one invalid part gets the contract's 4xx, never a 5xx (${runs} runs)`, async () => {
      // Every operation with every way to break it, in turn: each pair gets its share of the runs.
      const pairs = apiOperations.flatMap((operation) =>
        mutationsOf(operation).map((mutation) => [operation, mutation] as const),
      )
      const arbitrary = fc
        .constantFrom(...pairs)
        .chain(([operation, mutation]) =>
          fc.tuple(fc.constant(operation), validRequest(operation, 'admin'), mutation),
        )
      await fc.assert(
        fc.asyncProperty(arbitrary, async ([operation, request, mutation]) => {
          const strict = mutation.kind === 'unknown'
          const id = strict ? 'fuzz-strict' : sandboxId()
          if (strict)
            await send()(
              'PATCH',
              '/__sandbox/config',
              { 'x-sandbox-id': id, 'content-type': 'application/json' },
              '{"strict":true}',
            )
          let path = urlOf(operation, request)
          let body = request.body
          let type = 'application/json'
          switch (mutation.kind) {
            case 'query': {
              const { [mutation.name]: _, ...query } = request.query
              path = urlOf(operation, { ...request, query }, { [mutation.name]: mutation.value })
              if (mutation.twice)
                path = `${path}${path.includes('?') ? '&' : '?'}${mutation.name}=1`
              break
            }
            case 'id':
              path = urlOf(operation, {
                ...request,
                ids: Object.fromEntries(
                  Object.keys(request.ids).map((name) => [name, mutation.value]),
                ),
              })
              break
            case 'huge':
              body = JSON.stringify({ filler: 'x'.repeat(1024 * 1024 + 10) })
              break
            case 'deep':
              body = `${'['.repeat(1000)}${']'.repeat(1000)}`
              break
            case 'malformed':
              body = '{"name": '
              break
            case 'media':
              type = 'text/plain'
              break
            case 'type':
              body = JSON.stringify(mistyped(operation, JSON.parse(body ?? '{}')))
              break
            case 'unknown':
              body = JSON.stringify({ ...(JSON.parse(body ?? '{}') as object), surplusField: 1 })
              break
            case 'format': {
              const wrong = misformatted(operation, JSON.parse(body ?? '{}'))
              if (wrong === null) return
              body = JSON.stringify(wrong)
              break
            }
          }
          const headers: Record<string, string> = {
            authorization: `Bearer ${tokens.admin}`,
            'x-sandbox-id': id,
            ...(body === undefined ? {} : { 'content-type': type }),
          }
          const answer = await send()(operation.method, path, headers, body)
          const parsed = checkAnswer(operation, path, answer)
          const expected = expectedFor(mutation)
          if (expected.length === 0) return
          // `keyword` takes any text of 1-100 characters: only an empty or repeated one is wrong.
          if (
            mutation.kind === 'query' &&
            mutation.name === 'keyword' &&
            !mutation.twice &&
            mutation.value !== ''
          )
            return
          expect(
            expected.map(([status, code]) => `${status}/${code}`),
            `${operation.method} ${path} (${mutation.kind}) → ${answer.status}: ${answer.text.slice(0, 200)}`,
          ).toContain(`${answer.status}/${parsed?.code}`)
        }),
        { numRuns: runs, seed: SEED + 1, endOnFailure: true },
      )
    }, 120_000)

    it(`the control API and overrides, fuzzed the same way, never answer 5xx (${runs} runs)`, async () => {
      const arbitrary = fc
        .constantFrom(...controlOperations)
        .chain((operation) => fc.tuple(fc.constant(operation), validRequest(operation, 'admin')))
      await fc.assert(
        fc.asyncProperty(arbitrary, async ([operation, request]) => {
          const path = urlOf(operation, request)
          const headers: Record<string, string> = {
            'x-sandbox-id': `fuzz-control-${round++ % 5}`,
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          }
          checkAnswer(operation, path, await send()(operation.method, path, headers, request.body))
        }),
        { numRuns: runs, seed: SEED + 2, endOnFailure: true },
      )
    }, 120_000)
  })
}

/** Values a field's format or pattern refuses: an e-mail's domain label ending in `-`, a lower-case SKU. */
function misformatted(operation: Operation, body: unknown): unknown {
  const schema = resolve(
    document,
    (operation.spec.requestBody as Json).content['application/json'].schema as Json,
  )
  for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const resolved = resolve(document, field)
    const wrong =
      resolved.format === 'email'
        ? 'ab@x-.com'
        : typeof resolved.pattern === 'string' && !new RegExp(resolved.pattern).test('lower case!')
          ? 'lower case!'
          : undefined
    if (wrong !== undefined)
      return { ...(typeof body === 'object' && body !== null ? body : {}), [name]: wrong }
  }
  return null
}

/** A body with one of its schema's fields given a value of another type. */
function mistyped(operation: Operation, body: unknown): unknown {
  const schema = resolve(
    document,
    (operation.spec.requestBody as Json).content['application/json'].schema as Json,
  )
  const [name, field] = Object.entries((schema.properties ?? {}) as Record<string, Json>)[0] ?? []
  if (name === undefined) return 12
  const wrong = resolve(document, field!).type === 'string' ? 12 : 'not-what-it-takes'
  return { ...(typeof body === 'object' && body !== null ? body : {}), [name]: wrong }
}

const inProcessSend: Send = async (method, path, headers, body) => {
  const response = await inProcess.fetch(`${BASE}${path}`, { method, headers, body: body ?? null })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

let server: SandboxServer
beforeAll(async () => {
  server = await createSandboxServer({ port: 0 })
})
afterAll(() => server.close())
const overHttp: Send = async (method, path, headers, body) => {
  const response = await fetch(`${server.url}${path}`, { method, headers, body: body ?? null })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

fuzz('the fuzzer, in process (the MSW handlers\u2019 pipeline)', () => inProcessSend, RUNS)
fuzz('the fuzzer, over HTTP (the Node server)', () => overHttp, Math.ceil(RUNS / 3))
