import type { Faker } from '@faker-js/faker'
import { definedOnly } from '../db/defined-only.js'
import { heapStatistics } from '../db/heap.js'
import type { ProgressReporter } from '../db/progress.js'
import { sliceDue, whole } from '../db/progress.js'
import type { Snapshot } from '../db/store.js'
import type { UniqueKey } from '../db/table.js'
import { foldCase, freezeDocument } from '../db/store.js'
import { OptionsError } from '../contract/option-spec.js'
import { isoTime } from '../contract/iso-time.js'
import { mustBeInteger, shownValue, thrown } from '../contract/params.js'
import { jsonFootprint, MAX_JSON_DEPTH, notJson } from '../contract/json-size.js'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { linkProblems } from './document.js'
import type { Catalog } from './catalog.js'
import type { Row } from './define.js'
import { fakerBase, fakerClass, fakerEnglish, readPrepared } from './seed-sources.js'

export const DEFAULT_SEED = 1

/** The seeds a sandbox accepts, [min, max]: any safe integer (the CLI's `--seed` takes the same). */
export const seedLimits = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] as const

/** Every generated timestamp lies before this fixed date, so data never depends on the clock. */
export const REFERENCE_DATE = '2026-01-01T00:00:00.000Z'

export const DAY = 86_400_000

/**
 * The seed and the count of every resource, defaults filled in; a TypeError naming a bad one
 * (`label` names where a resource's count was given: `counts.users`, or `users`).
 */
export function resolveSeedOptions(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>> = {},
  label: (name: string) => string = (name) => name,
): { seed: number } & Record<string, number> {
  const given = definedOnly(options) as Record<string, unknown>
  const seed = given.seed ?? DEFAULT_SEED
  if (!Number.isSafeInteger(seed))
    throw new OptionsError('sandbox', `seed: must be a safe integer, got ${shownValue(seed)}`)
  const resolved: { seed: number } & Record<string, number> = { seed: seed as number }
  for (const { name, seed: spec } of catalog.resources) {
    const value = given[name] ?? spec.count
    if (
      !Number.isSafeInteger(value) ||
      (value as number) < spec.min ||
      (value as number) > spec.max
    )
      throw new OptionsError(
        'sandbox',
        `${label(name)}: ${mustBeInteger(spec.min, spec.max)}, got ${shownValue(value)}`,
      )
    resolved[name] = value as number
  }
  for (const { name, seed: spec } of catalog.resources) {
    if (spec.needs && resolved[name]! > 0 && resolved[spec.needs] === 0)
      throw new OptionsError(
        'sandbox',
        `${name}: ${resolved[name]} ${name} need ${spec.needs}, and 0 ${spec.needs} were asked for`,
      )
  }
  return resolved
}

/** The data set a build prepared for a catalog's default seed and counts, as `npm run build` writes it. */
export interface PreparedSeed {
  counts: Record<string, number>
  snapshot: Snapshot
}

/** Catalogs whose default data set the build prepares, by the file it writes (see {@link seedCatalog}). */
const preparedFiles = new Map<Catalog, string>()

/**
 * Has the build prepare `catalog`'s default data set as `file` (JSON beside the seeder), so a
 * sandbox with those defaults loads it instead of loading faker and generating it. The shop's
 * catalog is the one: scripts/build-esm.ts writes each registered catalog's file.
 */
export function prepareDefaultSeed(catalog: Catalog, file: string): void {
  preparedFiles.set(catalog, file)
}

/**
 * Data sets generated for the sandboxes of a catalog, by their options (seed and counts), the
 * last {@link KEPT_DATA_SETS} asked for: a seeded data set is the same bytes every time, so a test
 * file that makes a sandbox per test in \`big\` (31,000 records, ~0.5 s to generate) or with its
 * own counts generates it once, and every sandbox loads the same frozen lists (sharing their
 * indexes until it writes: db/table.ts). Catalogs made for one sandbox (\`resources\`) are not
 * kept, so neither is their data.
 */
const generated = new WeakMap<Catalog, Map<string, Snapshot>>()
const KEPT_DATA_SETS = 2

/**
 * A sandbox's data set for these options, frozen ({@link seedCatalog}, generated once per catalog
 * and options while kept).
 */
export function seededDocument(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>>,
  onProgress?: ProgressReporter,
): Snapshot {
  return whole(seedingDocument(catalog, options, onProgress))
}

/**
 * {@link seededDocument}, yielding between slices of the work ({@link sliceDue}: some 8 ms of
 * records made, checked and frozen): a scenario's data set made while a server answers.
 */
export function* seedingDocument(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>>,
  onProgress?: ProgressReporter,
): Generator<void, Snapshot> {
  const counts = resolveSeedOptions(catalog, options)
  const key = JSON.stringify([counts.seed, ...catalog.names.map((name) => counts[name])])
  let kept = generated.get(catalog)
  const hit = kept?.get(key)
  if (kept && hit) {
    // The most recently asked for is the last to go.
    kept.delete(key)
    kept.set(key, hit)
    const total = catalog.names.reduce((sum, name) => sum + hit[name]!.length, 0)
    onProgress?.('generating', total, total)
    return hit
  }
  const heavy = seedWeightProblem(catalog, counts)
  if (heavy) throw new SeedTooLarge(heavy)
  const made = freezeDocument(yield* seedingCatalog(catalog, counts, onProgress))
  if (!kept) generated.set(catalog, (kept = new Map()))
  kept.set(key, made)
  if (kept.size > KEPT_DATA_SETS) kept.delete(kept.keys().next().value!)
  return made
}

/** A data set refused before it is generated: it would not fit in memory (see {@link seedWeightProblem}). */
export class SeedTooLarge extends OptionsError {
  constructor(readonly problem: string) {
    super('sandbox', `counts: ${problem}`)
  }
}

/** Data sets of fewer records than this are not weighed: they cannot fill a heap. */
const WEIGHED_FROM = 10_000

/**
 * The share of the heap's free room a generated data set may take, weighed as JSON-shaped
 * values (jsonFootprint counts one-and-a-half to three times what V8 keeps of the shop's
 * records): the rest is for generating it (faker's strings, the checks) and for what the
 * sandbox holds beside it (named sandboxes, journal, writes: a quarter of the heap each, at most).
 */
export const SEED_SHARE = 0.6

/**
 * Times its size a data document's text takes in memory once read, parsed, checked and indexed
 * (its text, the parsed records, the checked copies the store keeps): a data file read, a
 * `PUT /__sandbox/db` (a 7.7 MB document of orders peaked at ~43 MB, 2026-11-28).
 */
export const READ_FACTOR = 5

/** Estimated bytes of the data documents being read at once in this process ({@link documentRoom}). */
let documentsReading = 0

/**
 * Takes room for reading a data document of `bytes` (its text, ~{@link READ_FACTOR} times that
 * once parsed and checked) beside those being read already, within {@link SEED_SHARE} of the
 * heap's free room: a release function, or null when it does not fit now (the one document
 * read alone is always let through; its size is bounded by `maxDocumentBytes`). The bytes of
 * bodies in flight are counted as they arrive; this counts what they become: 32 clients each
 * sending a valid 7.7 MB document ran a 512 MB server out of memory, eight of them parsed and
 * checked side by side.
 */
export function documentRoom(bytes: number): (() => void) | null {
  const weight = bytes * READ_FACTOR
  const room = heapRoom()
  if (documentsReading > 0 && room !== undefined && documentsReading + weight > room * SEED_SHARE)
    return null
  documentsReading += weight
  let released = false
  return () => {
    if (released) return
    released = true
    documentsReading -= weight
  }
}

/** Records of each resource a sample weighs (see {@link recordBytes}). */
const SAMPLE = 200
/** Bytes one record of each resource takes, by jsonFootprint, from a small generated sample. */
const perRecord = new WeakMap<Catalog, Readonly<Record<string, number>> | null>()

/**
 * Why a data set of these counts would not fit in memory, or null: the counts times each
 * resource's bytes per record (weighed once per catalog on a small sample of its own seeders'
 * records) against three fifths of the heap's free room: 1,000,000 of every record under a
 * 512 MB heap is refused, naming the counts, instead of running the process out of memory
 * while generating. Where the heap cannot be read (a browser without `performance.memory`),
 * nothing is weighed.
 */
export function seedWeightProblem(
  catalog: Catalog,
  counts: Readonly<Record<string, number>>,
): string | null {
  const asked = catalog.resources.filter(({ name }) => counts[name]! > 0)
  if (asked.reduce((sum, { name }) => sum + counts[name]!, 0) < WEIGHED_FROM) return null
  if (heapRoom() === undefined) return null
  const bytes = recordBytes(catalog)
  if (!bytes) return null
  const weight = asked.reduce((sum, { name }) => sum + counts[name]! * bytes[name]!, 0)
  const problem = heapShareProblem(weight)
  if (!problem) return null
  const named = asked.map(({ name }) => `${counts[name]} ${name}`)
  const list =
    named.length < 2 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`
  return `${list} would take ${problem}: ask for fewer records, or give Node a larger heap (node --max-old-space-size=<MB>)`
}

/**
 * Why data of `weight` bytes (estimated) do not fit in the share of the heap's free room data
 * may take ({@link SEED_SHARE}), or null: `~900 MB of memory (estimated), more than three fifths
 * of the 400 MB the heap has free`. `once`: when they take that room (`once read`).
 */
export function heapShareProblem(weight: number, once = ''): string | null {
  const room = heapRoom()
  if (room === undefined || weight <= room * SEED_SHARE) return null
  const megabytes = (value: number) => `${Math.ceil(value / 2 ** 20)} MB`
  return `~${megabytes(weight)} of memory${once && ` ${once}`} (estimated), more than three fifths of the ${megabytes(room)} the heap has free`
}

/**
 * Each resource's bytes per record: from a data set of the catalog already made (the sandbox's
 * own, made first), else from a sample of {@link SAMPLE} each (null when the sample fails).
 */
function recordBytes(catalog: Catalog): Readonly<Record<string, number>> | null {
  if (perRecord.has(catalog)) return perRecord.get(catalog)!
  const made = [...(generated.get(catalog)?.values() ?? [])].find((data) =>
    catalog.names.every((name) => data[name]!.length > 0),
  )
  let bytes: Record<string, number> | null = null
  try {
    const data = made ?? seedCatalog(catalog, sampleCounts(catalog))
    bytes = Object.fromEntries(
      catalog.names.map((name) => {
        const records = data[name]!.slice(0, SAMPLE)
        return [name, jsonFootprint(records).bytes / Math.max(1, records.length)]
      }),
    )
  } catch {
    // A seeder that fails on the sample fails on the data set too, and says why there.
  }
  perRecord.set(catalog, bytes)
  return bytes
}

/** {@link SAMPLE} records of each resource, or more where its minimum or the fixed accounts need. */
function sampleCounts(catalog: Catalog): Record<string, number> {
  const { resource, tokens } = catalog.accounts
  return Object.fromEntries(
    catalog.resources.map(({ name, seed: spec }) => {
      const least = name === resource.name ? Math.max(0, ...tokens.map(({ userId }) => userId)) : 0
      return [name, Math.min(spec.max, Math.max(SAMPLE, spec.min, least))]
    }),
  )
}

/** The bytes the JavaScript heap has free now, or undefined where it cannot be read. */
export function heapRoom(): number | undefined {
  const heap = heapStatistics()
  return heap && heap.limit - heap.used
}

/** Every catalog {@link prepareDefaultSeed} registered, with its file. */
export function preparedSeedFiles(): ReadonlyMap<Catalog, string> {
  return preparedFiles
}

/** The prepared data set of `catalog` for `counts`, when the build wrote one for exactly those. */
function preparedSeed(catalog: Catalog, counts: Record<string, number>): Snapshot | undefined {
  const file = preparedFiles.get(catalog)
  const prepared = file === undefined ? undefined : (readPrepared(file) as PreparedSeed | undefined)
  if (!prepared) return undefined
  const keys = Object.keys(counts)
  const same =
    keys.length === Object.keys(prepared.counts).length &&
    keys.every((key) => prepared.counts[key] === counts[key])
  return same ? prepared.snapshot : undefined
}

/** Whether a sandbox of `catalog` with these options gets a prepared data set (no faker needed). */
export function hasPreparedSeed(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>> = {},
): boolean {
  try {
    return preparedSeed(catalog, resolveSeedOptions(catalog, options)) !== undefined
  } catch {
    // Bad options: the sandbox refuses them, naming the field, when it is made.
    return false
  }
}

/**
 * Generates a sandbox's data set, deterministically: one faker, seeded, runs every resource's
 * seeder in definition order, and every date is derived from {@link REFERENCE_DATE}, never from
 * the clock. A data set the build prepared for the same catalog, seed and counts is read
 * instead (the same bytes, without loading faker).
 */
export function seedCatalog(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>> = {},
  onProgress?: ProgressReporter,
): Snapshot {
  return whole(seedingCatalog(catalog, options, onProgress))
}

/** What the `onProgress` option threw inside a seeder's `progress` call: its own, not the seeder's. */
class ReporterThrew extends Error {}

/** `onProgress`, called from inside a seeder: what it throws is thrown as its own. */
function reportThrough(
  onProgress: ProgressReporter | undefined,
  ...report: Parameters<ProgressReporter>
) {
  try {
    onProgress?.(...report)
  } catch (error) {
    throw new ReporterThrew('onProgress threw', { cause: error })
  }
}

/** {@link seedCatalog}, yielding between slices of its work. */
function* seedingCatalog(
  catalog: Catalog,
  options: Readonly<Record<string, unknown>>,
  onProgress?: ProgressReporter,
): Generator<void, Snapshot> {
  const counts = resolveSeedOptions(catalog, options)
  const total = catalog.resources.reduce((sum, { name }) => sum + counts[name]!, 0)
  const prepared = preparedSeed(catalog, counts)
  if (prepared) {
    onProgress?.('generating', total, total)
    return prepared
  }
  const FakerClass = fakerClass()
  const locale = catalog.fakerLocale?.() ?? fakerEnglish()
  const faker = new FakerClass({ locale: [locale, fakerBase()], seed: counts.seed })
  // Loading faker and merging its locales, ~30 ms the first time, is a slice of its own.
  yield
  const reference = Date.parse(REFERENCE_DATE)
  const data: Record<string, Row[]> = {}
  const nextIds: Record<string, number> = {}
  let before = 0
  for (const { name, definition } of catalog.seedOrder) {
    const offset = before
    let generated: unknown
    try {
      generated = definition.seed.generate({
        faker,
        count: counts[name]!,
        reference,
        data,
        progress: (done) => reportThrough(onProgress, 'generating', offset + done, total),
      })
    } catch (error) {
      if (error instanceof ReporterThrew) throw error.cause
      throw new TypeError(`${name}.seed.generate ${thrown(error)}`, { cause: error })
    }
    const records = yield* checkingSeed(catalog, name, generated, counts[name]!)
    data[name] = records
    nextIds[name] = records.length + 1
    before += records.length
    onProgress?.('generating', before, total)
  }
  checkTokens(catalog, data)
  // Links leading nowhere (and each resource's own check), as a data document is checked.
  const broken = yield* linkProblems(catalog, data, SEED_CHECKED)
  if (broken)
    throw new TypeError(
      `${broken.name}.seed.generate: record ${broken.index + 1}: ${broken.problem}`,
    )
  // The document lists resources in definition order, whatever order they were seeded in.
  const ordered = Object.fromEntries(catalog.names.map((name) => [name, data[name]!]))
  return { ...ordered, nextIds } as Snapshot
}

/** Every fixed token stands for a seeded account (else every request with it would be a 401). */
function checkTokens(catalog: Catalog, data: Readonly<Record<string, Row[]>>): void {
  const { resource, tokens } = catalog.accounts
  for (const [position, { token, userId }] of tokens.entries()) {
    if (userId > data[resource.name]!.length)
      throw new TypeError(
        `api.accounts.tokens[${position}].userId: ${token} stands for ${resource.singular} ${userId}, but ${data[resource.name]!.length} ${resource.name} are seeded; seed more or pick another account`,
      )
  }
}

/** Generated records checked against their schema: the first this many of each resource. */
const SEED_CHECKED = 1000

/**
 * The records a data set is made of, one constructor for all: V8 gives the objects `new` makes
 * room for their fields in the object itself (slack tracking, up to some eight fields), where
 * `{ id, ...values }` keeps two there and the rest in a second array: ~24 bytes and an object
 * more per record (docs/decisions/2026-11-scale-and-writes.md, "Memory at 100,000 users"). A
 * plain object still: its prototype is `Object.prototype`, and the constructor is named
 * `Object`, so a debugger's preview (which names an object by the function that made it) shows
 * a record as it shows any plain object.
 */
// In an object of its own: esbuild folds `{ Object: function () {} }.Object` to a function the
// variable then names.
const constructors = { Object: function () {} }
const SeedRecord = constructors.Object as unknown as new () => Record<string, unknown>
SeedRecord.prototype = Object.prototype

function plainRecord(id: number, values: Record<string, unknown>): Row {
  const record = new SeedRecord()
  record.id = id
  for (const key of Object.keys(values))
    if (key === '__proto__')
      // An own `__proto__` (JSON.parse makes one) stays a field, as a spread copies it, for the
      // checks to refuse: assigned, it would set the record's prototype.
      Object.defineProperty(record, key, {
        value: values[key],
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else record[key] = values[key]
  record.id = id
  return record as Row
}

/**
 * A seeder's records with their ids, checked as a definition is (a TypeError naming the
 * resource and the record): the count asked for, each of the first {@link SEED_CHECKED} valid
 * for the schema (a seeder's mistake is systematic: the first records show it), and every
 * unique key unique.
 */
function* checkingSeed(
  catalog: Catalog,
  name: string,
  generated: unknown,
  count: number,
): Generator<void, Row[]> {
  const where = `${name}.seed.generate`
  const records: Row[] = []
  const add = (values: unknown) => {
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      throw new TypeError(`${where}: record ${records.length + 1} must be an object`)
    // Ids are the seed's: 1, 2, 3… whatever a seeder put there (id stays the first key).
    records.push(plainRecord(records.length + 1, values as Record<string, unknown>))
  }
  if (Array.isArray(generated)) {
    try {
      if (generated.length !== count)
        throw new TypeError(
          `${where}: returned ${generated.length} records; ${count} were asked for`,
        )
      // Index by index: a hole (`new Array(3)`) is a record that is not an object, as map skipped it.
      for (let index = 0; index < count; index++) {
        add(generated[index])
        if (sliceDue(index + 1)) yield
      }
    } catch (error) {
      if (error instanceof TypeError && error.message.startsWith(where)) throw error
      // A list or a record that throws when read (a Proxy's trap): said, naming the seeder.
      throw new TypeError(`${where}: its records cannot be read: ${thrown(error)}`, {
        cause: error,
      })
    }
  } else {
    // A generator function's records, made as they are taken: the loop is given back between
    // slices of them (a seeder of 10,000 users held it ~300 ms in one piece).
    const iterator = iteratorOf(generated)
    if (!iterator) throw new TypeError(`${where}: must return a list of records (or yield them)`)
    for (;;) {
      let step: IteratorResult<unknown>
      try {
        step = iterator.next()
      } catch (error) {
        if (error instanceof ReporterThrew) throw error.cause
        throw new TypeError(`${where} ${thrown(error)}`, { cause: error })
      }
      if (step.done) break
      if (records.length === count)
        throw new TypeError(`${where}: yielded more than the ${count} records asked for`)
      add(step.value)
      if (sliceDue(records.length)) yield
    }
    if (records.length !== count)
      throw new TypeError(`${where}: yielded ${records.length} records; ${count} were asked for`)
  }
  const resource = catalog.get(name)
  const keyword = resource.definition.list?.keyword as ((record: Row) => unknown) | undefined
  const fields = new Set(resource.fields)
  for (const record of records.slice(0, SEED_CHECKED)) {
    if (sliceDue(record.id)) yield
    let checked: ReturnType<typeof safeParseReporting>
    try {
      checked = safeParseReporting(resource.schema, record)
    } catch (error) {
      // A refinement of the schema's own that throws instead of saying no.
      throw new TypeError(`${name}.schema: checking record ${record.id} ${thrown(error)}`, {
        cause: error,
      })
    }
    if (!checked.success)
      throw new TypeError(
        `${where}: record ${record.id}: ${describeIssue(checked.error.issues[0]!, 'record')}`,
      )
    // Stored as generated: a key the schema lacks would be served, outside the documented record.
    for (const key in record)
      if (!fields.has(key))
        throw new TypeError(
          `${where}: record ${record.id}: ${key} is not a field of ${name} (fields: ${resource.fields.join(', ')})`,
        )
    let text: unknown
    try {
      text = keyword?.(checked.data as Row)
    } catch (error) {
      throw new TypeError(`${name}.list.keyword: ${thrown(error)} for record ${record.id}`, {
        cause: error,
      })
    }
    if (keyword && typeof text !== 'string')
      throw new TypeError(
        `${name}.list.keyword: must return the text keyword searches (a string); it returned ${text === null ? 'null' : typeof text} for record ${record.id}`,
      )
  }
  // A field the schema leaves open (z.unknown(), z.any()) takes any value, JSON or not: each
  // record's is checked, or the first answer holding a bigint or a cycle would be a 500.
  if (resource.openFields.length > 0)
    for (const record of records) {
      for (const field of resource.openFields) {
        const value = (record as Record<string, unknown>)[field] ?? null
        const problem =
          notJson(value) ??
          (jsonFootprint(value, MAX_JSON_DEPTH).tooDeep
            ? `nests deeper than ${MAX_JSON_DEPTH} levels`
            : null)
        if (problem)
          throw new TypeError(
            `${where}: record ${record.id}: ${field}: ${problem} (records are sent and kept as JSON)`,
          )
      }
    }
  for (const [field, key] of Object.entries(resource.table.unique ?? {})) {
    const seen = new Map<UniqueKey, number>()
    for (const record of records) {
      if (sliceDue(record.id)) yield
      const value = key(record)
      if (value === undefined) continue
      const first = seen.get(value)
      if (first !== undefined)
        throw new TypeError(
          `${where}: records ${first} and ${record.id} share ${field} '${value}', which must be unique`,
        )
      seen.set(value, record.id)
    }
  }
  return records
}

/** The iterator of what a seeder returned when it is neither a list nor a string, else null. */
function iteratorOf(generated: unknown): Iterator<unknown> | null {
  if (typeof generated !== 'object' || generated === null) return null
  try {
    const iterate = (generated as Partial<Iterable<unknown>>)[Symbol.iterator]
    return typeof iterate === 'function' ? (iterate.call(generated) as Iterator<unknown>) : null
  } catch {
    return null
  }
}

/** `count` ascending timestamps between `from` and `to`, with a matching later `updatedAt`. */
export function timeline(faker: Faker, count: number, from: number, to: number) {
  const at = timelineOf(faker, count, from, to)
  return Array.from({ length: count }, (_, index) => at(index))
}

/**
 * {@link timeline}'s record at an index, for a seeder that yields its records one by one: the
 * random draws are made at once, in timeline's order (the same seed, the same bytes), and each
 * record's texts when it is asked for, in the seeder's slice. Made all at once, 200,000 users'
 * timestamps held the loop ~330 ms before the first record.
 */
export function timelineOf(
  faker: Faker,
  count: number,
  from: number,
  to: number,
): (index: number) => { createdAt: string; updatedAt: string } {
  const created = new Float64Array(count)
  for (let index = 0; index < count; index++)
    created[index] = faker.number.int({ min: from, max: to })
  created.sort()
  // Most records were never changed after creation: those share one string (less memory).
  const updated = new Float64Array(count)
  for (let index = 0; index < count; index++) {
    const time = created[index]!
    const changed = faker.number.int({ min: 0, max: 9 }) < 3
    updated[index] = changed ? faker.number.int({ min: time, max: to }) : Number.NaN
  }
  return (index) => {
    const createdAt = isoTime(created[index]!)
    const later = updated[index]!
    return { createdAt, updatedAt: Number.isNaN(later) ? createdAt : isoTime(later) }
  }
}

/** `candidate`, or `vary(2)`, `vary(3)`… until one is not `taken` (case-insensitively); taken then. */
export function uniqueValue(
  taken: Set<string>,
  candidate: string,
  vary: (n: number) => string,
): string {
  let value = candidate
  let key = foldCase(value)
  for (let n = 2; taken.has(key); n++) key = foldCase((value = vary(n)))
  taken.add(key)
  return value
}

/**
 * 1 to `max` distinct random elements. (faker's `arrayElements` shuffles a copy of the whole
 * array on every call, which made seeding 100k orders from 60k products take minutes.)
 */
export function pickDistinct<T>(faker: Faker, from: readonly T[], max: number): T[] {
  const count = faker.number.int({ min: 1, max })
  const indexes = new Set<number>()
  while (indexes.size < count) indexes.add(faker.number.int({ min: 0, max: from.length - 1 }))
  return [...indexes].map((index) => from[index]!)
}
