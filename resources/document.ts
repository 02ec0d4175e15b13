import * as z from 'zod'
import { MAX_ID } from '../contract/fields.js'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { clip, shownValue, thrown } from '../contract/params.js'
import { schemaRegistry } from '../contract/registry.js'
import type { ProgressReporter } from '../db/progress.js'
import { inSlices, PROGRESS_STEP, SLICE, sliceDue, whole } from '../db/progress.js'
import type { Document, Snapshot } from '../db/store.js'
import type { UniqueKey } from '../db/table.js'
import type { Catalog } from './catalog.js'
import type { Row } from './define.js'
import { nameOf } from './define.js'

export type DocumentCheck = { ok: true; document: Document } | { ok: false; problem: string }

const schemas = new WeakMap<Catalog, { document: z.ZodObject; nextIds: z.ZodObject }>()

/** The data document's schema (`GET/PUT /__sandbox/db`, the `--data` file) and the snapshot's id sequences. */
export function documentSchemas(catalog: Catalog) {
  let known = schemas.get(catalog)
  if (!known) {
    const nextId = z
      .int()
      .min(1)
      .max(MAX_ID + 1)
    const nextIds = z.object(Object.fromEntries(catalog.names.map((name) => [name, nextId])))
    known = {
      document: z
        .object({
          ...Object.fromEntries(
            catalog.resources.map(({ name, definition }) => [name, z.array(definition.schema)]),
          ),
          nextIds: nextIds.optional().register(schemaRegistry, {
            description:
              'The id each collection hands out next (ids are never reused). Without it, a replace keeps the sequences where they are, or continues after the highest id when that is higher.',
          }),
        })
        .register(schemaRegistry, { id: 'DbDocument' }),
      nextIds,
    }
    schemas.set(catalog, known)
  }
  return known
}

/**
 * {@link checkDocument}, plus the snapshot's id sequences when it has them (`nextIds`, as
 * `snapshot()` gives), so a restore never continues from a sequence that is not a valid id.
 */
export function checkSnapshot(catalog: Catalog, input: unknown): SnapshotCheck {
  return withSequences(catalog, checkDocument(catalog, input), input)
}

/**
 * {@link checkSnapshot} in slices of {@link SLICE} records, the event loop given back between
 * them: what `PUT /__sandbox/db` checks a document of 8 MB with (31,000 records held the loop
 * some 120-200 ms in one piece, beside the parsing and the replacing).
 */
export async function checkSnapshotSliced(
  catalog: Catalog,
  input: unknown,
): Promise<SnapshotCheck> {
  return withSequences(catalog, await inSlices(checkingDocument(catalog, input)), input)
}

type SnapshotCheck = { ok: true; document: Document | Snapshot } | { ok: false; problem: string }

/** A checked document with the snapshot's id sequences, when it has them (checked too). */
function withSequences(catalog: Catalog, check: DocumentCheck, input: unknown): SnapshotCheck {
  if (!check.ok || typeof input !== 'object' || input === null || !('nextIds' in input))
    return check
  const nextIds = safeParseReporting(documentSchemas(catalog).nextIds, input.nextIds)
  if (!nextIds.success) {
    const issue = nextIds.error.issues[0]!
    return { ok: false, problem: describeIssue({ ...issue, path: ['nextIds', ...issue.path] }) }
  }
  return { ok: true, document: { ...check.document, nextIds: nextIds.data } as Snapshot }
}

/**
 * Validates a data document: every record against its resource's schema, then what no single
 * record can show (unique ids and unique keys, links leading to existing records, each
 * resource's own check). Reports the first problem, naming the record.
 *
 * @example
 * const check = checkDocument(catalog, JSON.parse(text))
 * if (!check.ok) console.error(check.problem) // "users[3].email: must be a valid e-mail address"
 */
export function checkDocument(
  catalog: Catalog,
  input: unknown,
  onProgress?: ProgressReporter,
): DocumentCheck {
  return whole(checkingDocument(catalog, input, onProgress))
}

/** {@link checkDocument}, yielding after every slice of records it checked ({@link sliceDue}). */
function* checkingDocument(
  catalog: Catalog,
  input: unknown,
  onProgress?: ProgressReporter,
): Generator<void, DocumentCheck> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      problem: `document: must be an object with ${listed(catalog.names)}`,
    }
  }
  const source = input as Record<string, unknown>
  for (const name of catalog.names) {
    if (!Array.isArray(source[name])) {
      return {
        ok: false,
        problem: `${name}: ${source[name] === undefined ? 'is required' : 'must be an array'}`,
      }
    }
  }
  const total = catalog.names.reduce((sum, name) => sum + (source[name] as unknown[]).length, 0)
  let done = 0
  const document: Record<string, Row[]> = {}
  // Record by record rather than one parse of the whole document: the first bad record is
  // named, progress can be reported, and a big file never needs a second full copy at once.
  for (const { name, definition } of catalog.resources) {
    const records: Row[] = []
    for (const [index, record] of (source[name] as unknown[]).entries()) {
      const result = safeParseReporting(definition.schema, record)
      if (!result.success) {
        const issue = result.error.issues[0]!
        return {
          ok: false,
          problem: describeIssue({ ...issue, path: [name, index, ...issue.path] }),
        }
      }
      records.push(result.data as Row)
      if (++done % PROGRESS_STEP === 0) onProgress?.('validating', done, total)
      if (sliceDue(done)) yield
    }
    document[name] = records
  }
  for (const { name, table } of catalog.resources) {
    const problem = yield* uniqueness(name, document[name]!, {
      id: (record) => String(record.id),
      ...table.unique,
    })
    if (problem) return { ok: false, problem }
  }
  const problem = yield* linkProblems(catalog, document)
  return problem
    ? { ok: false, problem: `${problem.name}[${problem.index}].${problem.problem}` }
    : { ok: true, document }
}

/**
 * A document as `GET /__sandbox/db` answered it, envelope and all (`curl … -o backup.json`),
 * is taken as the document it holds: what GET gives, PUT and a scenario's `data` take back.
 */
export function unwrapped(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const { code, message, data, ...rest } = body as Record<string, unknown>
  const envelope =
    code === 0 && typeof message === 'string' && typeof data === 'object' && data !== null
  return envelope && Object.keys(rest).length === 0 ? data : body
}

/**
 * The first top-level key of a document that is no collection of the API (nor `nextIds`), as a
 * problem naming it, or null: `PUT /__sandbox/db` refuses it (422) rather than drop its records
 * without a word, as a data file holding one is refused. Keys only: linear.
 */
export function unknownCollection(catalog: Catalog, input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null
  const known = new Set([...catalog.names, 'nextIds'])
  for (const key of Object.keys(input))
    if (!known.has(key))
      return `${clip(key)}: is not a collection of this API (${listed(catalog.names)})`
  return null
}

/**
 * The first key of a document that no collection or field of the API holds (`cats`, a file
 * written with `--resources` and read without; `users[3].nickname`), or null. A document is
 * checked as the schemas read it, and they leave such keys out: the data file's next write
 * would drop them without a word, so a data file holding one is refused (with what to do).
 * Keys only, no values: linear in the document.
 */
export function unknownKey(catalog: Catalog, input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null
  const collection = unknownCollection(catalog, input)
  if (collection !== null)
    return `${collection}; its records would be dropped at the next write (a file written with --resources is served with the same --resources)`
  for (const { name, fields } of catalog.resources) {
    const records = (input as Record<string, unknown>)[name]
    if (!Array.isArray(records)) continue
    const own = new Set(fields)
    for (const [index, record] of records.entries()) {
      if (typeof record !== 'object' || record === null) continue
      for (const key of Object.keys(record))
        if (!own.has(key))
          return `${name}[${index}].${clip(key)}: is not a field of ${name}; it would be dropped at the next write`
    }
  }
  return null
}

/** `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** The first record whose id or unique key another holds, yielding every {@link SLICE} records. */
function* uniqueness(
  collection: string,
  records: readonly Row[],
  keys: Readonly<Record<string, (record: Row) => UniqueKey | undefined>>,
): Generator<void, string | undefined> {
  for (const [field, key] of Object.entries(keys)) {
    const seen = new Map<UniqueKey, number>()
    for (const [index, record] of records.entries()) {
      if (index % SLICE === SLICE - 1) yield
      const value = key(record)
      if (value === undefined) continue
      const first = seen.get(value)
      if (first !== undefined) {
        return `${collection}[${index}].${field}: '${value}' is already used by ${collection}[${first}]`
      }
      seen.set(value, index)
    }
  }
  return undefined
}

/**
 * The first link leading nowhere, or a record failing its resource's own check: where (the
 * resource and the record's index) and what, e.g. `userId: user 9 does not exist`. An empty
 * link (an optional field left out, or null) leads nowhere on purpose. `limit`: records looked
 * at per resource (a seeder's mistake shows in its first records).
 */
export function linkProblem(
  catalog: Catalog,
  document: Readonly<Record<string, readonly Row[]>>,
  limit = Number.POSITIVE_INFINITY,
): LinkProblem | undefined {
  return whole(linkProblems(catalog, document, limit))
}

type LinkProblem = { name: string; index: number; problem: string }

/** {@link linkProblem}, yielding after every slice of records ({@link sliceDue}). */
export function* linkProblems(
  catalog: Catalog,
  document: Readonly<Record<string, readonly Row[]>>,
  limit = Number.POSITIVE_INFINITY,
): Generator<void, LinkProblem | undefined> {
  const ids = new Map<string, Set<number>>()
  const idsOf = (name: string) => {
    let set = ids.get(name)
    if (!set) ids.set(name, (set = new Set(document[name]!.map((record) => record.id))))
    return set
  }
  for (const { name, definition } of catalog.resources) {
    const { links = [], rules } = definition
    if (links.length === 0 && !rules?.check) continue
    const records = document[name]!
    for (let index = 0; index < Math.min(records.length, limit); index++) {
      if (sliceDue(index + 1)) yield
      const record = records[index]!
      for (const [position, link] of links.entries()) {
        const target = catalog.get(nameOf(link.resource))
        // ids() and check() are the definition's code: what they throw is named, not rethrown.
        let pointers: Array<[string, number]>
        try {
          const given = link.field ? [[link.field, record[link.field]]] : link.ids!(record)
          if (typeof (given as { [Symbol.iterator]?: unknown })?.[Symbol.iterator] !== 'function')
            return {
              name,
              index,
              problem: `(${name}.links[${position}].ids) must give a list of [path, id] pairs, gave ${shownValue(given)}`,
            }
          pointers = [...(given as Iterable<[string, number]>)]
        } catch (error) {
          return { name, index, problem: `(${name}.links[${position}].ids) ${thrown(error)}` }
        }
        for (const pair of pointers) {
          if (!Array.isArray(pair))
            return {
              name,
              index,
              problem: `(${name}.links[${position}].ids) must give [path, id] pairs, gave ${shownValue(pair)}`,
            }
          const [path, id] = pair
          if (id === undefined || id === null) continue
          if (!idsOf(target.name).has(id))
            return { name, index, problem: `${path}: ${target.singular} ${id} does not exist` }
        }
      }
      let problem: unknown
      try {
        problem = rules?.check?.(record)
      } catch (error) {
        return { name, index, problem: `(${name}.rules.check) ${thrown(error)}` }
      }
      if (problem && typeof problem !== 'string')
        return {
          name,
          index,
          problem: `(${name}.rules.check) must give a problem in words, or nothing, gave ${shownValue(problem)}`,
        }
      if (typeof problem === 'string' && problem !== '') return { name, index, problem }
    }
  }
  return undefined
}
