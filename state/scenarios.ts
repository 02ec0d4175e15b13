import { distance } from 'fastest-levenshtein'
import { ApiError, problemList } from '../contract/api-error.js'
import { isThenable } from '../contract/exchange.js'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { OptionsError } from '../contract/option-spec.js'
import { clip, thrown } from '../contract/params.js'
import type { Document, Snapshot, TableSpec } from '../db/store.js'
import { freezeDocument, Store } from '../db/store.js'
import { givenBack, inSlices, SLICE, whole } from '../db/progress.js'
import type { Catalog } from '../resources/catalog.js'
import { checkSnapshot, unknownCollection, unwrapped } from '../resources/document.js'
import {
  resolveSeedOptions,
  SeedTooLarge,
  seedingDocument,
  seedWeightProblem,
} from '../resources/seed.js'
import { seedSourcesFor } from '../resources/seed-sources.js'
import type { OverrideLimits } from './limits.js'
import type { OverrideInput, ParsedOverride } from './overrides/index.js'
import { Overrides, overridesListTooLong, parseOverride } from './overrides/index.js'
import type { RuntimeConfig, RuntimeConfigInput } from './runtime-config.js'
import { runtimeConfigPatchSchema } from './runtime-config.js'

/**
 * Named scenarios (CONTRACT C5): a state of the world by name, the same in every mode. A
 * scenario is a name, a one-line description, and what it sets: data, overrides (C2) and
 * settings (C1). The API names its own; a sandbox may be given more.
 */

/** The seed and the record counts a scenario's data is generated from (`{ seed: 7, counts: { users: 10000 } }`). */
export interface SeedData {
  seed?: number
  counts?: Readonly<Record<string, number>>
}

/**
 * What a scenario's data is: a document (as `GET /__sandbox/db` gives it), seed options, or a
 * function that changes the seeded store (`db`: the store of the API's resources, by name).
 */
export type ScenarioData<Db> = Readonly<Record<string, unknown>> | SeedData | ((db: Db) => void)

/** One named scenario, as code or a JSON file (`--scenarios`) declares it. */
export interface ScenarioDefinition<Db = Store> {
  /** Lower-case letters, digits and hyphens, e.g. `out-of-stock` (the JSON file's name, without `.json`). */
  name: string
  /** One line: what the app looks like in it. */
  description: string
  /** Its data; the sandbox's own seeded data when left out. */
  data?: ScenarioData<Db>
  /** Overrides it starts with (CONTRACT C2), besides the sandbox's own (`overrides` option). */
  overrides?: readonly OverrideInput[]
  /** Settings it changes (CONTRACT C1): `delay`, `errorRate`, `dropRate`, `strict`, `auth`. */
  settings?: RuntimeConfigInput
}

/**
 * Declares a scenario (CONTRACT C5) of any API: `db` is a {@link Store} unless `Db` says
 * more. The package exports it with the shop's store as the default (index.ts).
 */
export function defineScenario<Db = Store>(
  scenario: ScenarioDefinition<Db>,
): ScenarioDefinition<Db> {
  return scenario
}

/** The scenario every sandbox has: its own seeded data, overrides and settings. */
export const DEFAULT_SCENARIO = 'default'

/** What a scenario name may be: it is also a file name and a header value. */
const SCENARIO_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/

/** What `GET /__sandbox/scenarios` says of a scenario. */
export interface ScenarioSummary {
  name: string
  description: string
  /** What it sets: its data (`seed`, `document`, `function`, or null for the sandbox's own), overrides and settings. */
  sets: {
    data: 'seed' | 'document' | 'function' | null
    overrides: number
    settings: Partial<RuntimeConfig>
  }
}

/** A scenario ready to use: checked, its data made on first use and shared by every sandbox in it. */
export class Scenario {
  #data: Snapshot | undefined
  #preparing: Promise<void> | undefined

  constructor(
    readonly name: string,
    readonly description: string,
    readonly kind: ScenarioSummary['sets']['data'],
    readonly overrides: readonly ParsedOverride[],
    readonly settings: Partial<RuntimeConfig>,
    readonly make: () => Snapshot,
    readonly how: {
      /** Loads what generating its data needs (faker in a browser): seed scenarios only. */
      loadSources?: () => Promise<void> | null
      /** {@link make}, yielding between slices of its work (seed scenarios). */
      making?: () => Generator<void, Snapshot>
      /** The tables its data is indexed for ahead ({@link prepared}). */
      tables?: readonly TableSpec[]
    } = {},
  ) {}

  /** Its data (the records frozen and shared: a sandbox restores from it without copying). */
  data(): Snapshot {
    return (this.#data ??= this.make())
  }

  /**
   * Makes its data in slices and indexes it ahead, the event loop given back between them (C3):
   * what a server does before it puts a sandbox in it (the first switch to `big` held the loop
   * ~0.9 s in one piece: generating, checking and indexing 31,000 records). Every sandbox then
   * restores from it sharing those indexes. Null when its data are made already (or its own).
   */
  prepared(): Promise<void> | null {
    if (this.#data !== undefined || this.kind === null) return null
    return (this.#preparing ??= this.#prepare().finally(() => (this.#preparing = undefined)))
  }

  async #prepare(): Promise<void> {
    await this.ready()
    // Loading faker (in Node, ~50 ms at once) and the first slice of its work in turns of their own.
    await givenBack()
    const made = this.how.making ? await inSlices(this.how.making()) : this.make()
    if (this.#data !== undefined) return
    const indexed = this.how.tables
      ? await inSlices(new Store(this.how.tables).preparing(made, SLICE))
      : made
    this.#data ??= freezeDocument(indexed as Snapshot)
  }

  /**
   * What making its data waits for, or null when nothing: generating it from a seed needs faker,
   * which a browser loads on demand (Node has it at once).
   */
  ready(): Promise<void> | null {
    if (this.#data !== undefined || this.kind !== 'seed') return null
    return this.how.loadSources?.() ?? null
  }

  summary(): ScenarioSummary {
    return {
      name: this.name,
      description: this.description,
      sets: { data: this.kind, overrides: this.overrides.length, settings: { ...this.settings } },
    }
  }
}

/** What a sandbox's scenarios are made from. */
export interface ScenarioSources {
  catalog: Catalog
  tables: readonly TableSpec[]
  /** The sandbox's own seeded data: the `default` scenario's, and what a function changes. */
  seed: Snapshot
  /** The API's scenarios, then the sandbox's (`scenarios` option): the later wins a name. */
  definitions: readonly unknown[]
  /** How many of `definitions` are the API's: a message names them `api.scenarios[i]`, the rest `scenarios[i]`. */
  apiDefinitions: number
  /** The bounds a scenario's overrides must fit, with the sandbox's own. */
  limits: OverrideLimits
  startOverrides: readonly ParsedOverride[]
  /** The API's own scenarios are proven by its suite: their functions run on first use, not now. */
  proven: ReadonlySet<unknown>
}

/**
 * The scenarios of a sandbox, by name; `default` first. The API's own (proven by its suite) are
 * checked and made ready on first use, not when the sandbox is made: a fresh test file pays
 * for the scenario it starts in, not for every one it could switch to.
 */
export class ScenarioSet {
  readonly #byName = new Map<string, Scenario | (() => Scenario)>()

  constructor(sources: ScenarioSources) {
    const own = new Scenario(
      DEFAULT_SCENARIO,
      "The sandbox's own seeded data, overrides and settings",
      null,
      [],
      {},
      () => sources.seed,
    )
    this.#byName.set(own.name, own)
    const given = new Set<string>()
    for (const [index, definition] of sources.definitions.entries()) {
      const proven = sources.proven.has(definition)
      const named = (definition as { name?: unknown } | null)?.name
      const scenario =
        proven && typeof named === 'string'
          ? { name: named, ready: () => scenarioOf(definition, index, sources) }
          : scenarioOf(definition, index, sources)
      if (given.has(scenario.name))
        throw new TypeError(
          `Invalid scenario '${scenario.name}': name: two scenarios are named '${scenario.name}'`,
        )
      given.add(scenario.name)
      this.#byName.set(scenario.name, scenario instanceof Scenario ? scenario : scenario.ready)
    }
  }

  get(name: string): Scenario | undefined {
    const found = this.#byName.get(name)
    if (typeof found !== 'function') return found
    let scenario: Scenario
    try {
      scenario = found()
    } catch (error) {
      // Only the sandbox's own bounds can refuse a proven scenario (overrides past its budget).
      throw ApiError.of('rateLimited', (error as Error).message)
    }
    this.#byName.set(name, scenario)
    return scenario
  }

  /** The scenario of that name, or 404 / 40400 naming the known ones, closest first. */
  named(name: string): Scenario {
    const scenario = this.get(name)
    if (scenario) return scenario
    throw ApiError.of('notFound', unknownScenario(name, this.names))
  }

  get names(): string[] {
    return [...this.#byName.keys()]
  }

  list(): Scenario[] {
    return this.names.map((name) => this.get(name)!)
  }
}

/** `no scenario named 'emtpy'; known: empty, default, …` (the closest first). */
export function unknownScenario(name: string, known: readonly string[]): string {
  const asked = clip(name, 64)
  // Names are lower case: `EMPTY` is nearest `empty`.
  const near = asked.toLowerCase()
  const ranked = [...known].sort(
    (a, b) => distance(near, a) - distance(near, b) || (a < b ? -1 : 1),
  )
  return `no scenario named '${asked}'; known (closest first): ${ranked.join(', ')}`
}

/** A definition checked and made ready, or a TypeError naming the scenario and the field. */
function scenarioOf(definition: unknown, index: number, sources: ScenarioSources): Scenario {
  const own = index - sources.apiDefinitions
  const place = own < 0 ? `api.scenarios[${index}]` : `scenarios[${own}]`
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition))
    throw new TypeError(
      `Invalid scenario ${place}: must be a scenario definition (defineScenario({ name, description, … }))`,
    )
  const given = definition as Partial<Record<keyof ScenarioDefinition, unknown>>
  const label = typeof given.name === 'string' ? `'${clip(given.name, 64)}'` : place
  const refuse = (field: string, problem: string) =>
    new TypeError(`Invalid scenario ${label}: ${field}: ${problem}`)
  if (typeof given.name !== 'string' || !SCENARIO_NAME.test(given.name))
    throw refuse(
      'name',
      'must be 1-63 lower-case letters, digits and hyphens, starting with a letter or digit (like out-of-stock)',
    )
  const name = given.name
  if (name === DEFAULT_SCENARIO)
    throw refuse('name', `'${DEFAULT_SCENARIO}' is every sandbox's own; pick another name`)
  if (typeof given.description !== 'string' || given.description.trim() === '')
    throw refuse('description', 'must be a line of text saying what the app looks like in it')
  if (given.description.length > 300 || /[\r\n]/.test(given.description))
    throw refuse('description', 'must be one line of at most 300 characters')
  for (const key of Object.keys(given))
    if (!['name', 'description', 'data', 'overrides', 'settings'].includes(key))
      throw refuse(
        clip(key),
        'is not a field of a scenario (name, description, data, overrides, settings)',
      )
  // Overrides: each as POST /__sandbox/overrides takes it, and all within the sandbox's bounds.
  if (given.overrides !== undefined && !Array.isArray(given.overrides))
    throw refuse('overrides', 'must be a list of overrides')
  // Counted before any is read, as the sandbox's own are: a list of a billion holes is cheap to make.
  // In the words createSandbox({ overrides }) refuses its own list.
  const most = sources.limits.count
  if ((given.overrides?.length ?? 0) > most)
    throw refuse(`overrides[${most}]`, overridesListTooLong(given.overrides!.length, most))
  const overrides = ((given.overrides ?? []) as unknown[]).map((input, at) =>
    parseOverride(input, `Invalid scenario ${label}: overrides[${at}]`, sources.limits.bytes),
  )
  const fits = new Overrides(sources.limits)
  try {
    for (const override of [...sources.startOverrides, ...overrides]) fits.add(override)
  } catch (error) {
    throw refuse('overrides', (error as Error).message)
  }
  // Settings: as PATCH /__sandbox/config takes them.
  let settings: Partial<RuntimeConfig> = {}
  if (given.settings !== undefined) {
    const parsed = safeParseReporting(runtimeConfigPatchSchema().strict(), given.settings)
    if (!parsed.success)
      throw new TypeError(
        `Invalid scenario ${label}: ${problemList(parsed.error.issues.map((issue) => describeIssue({ ...issue, path: ['settings', ...issue.path] }, 'settings')))}`,
      )
    settings = parsed.data as Partial<RuntimeConfig>
  }
  const [kind, make, making] = dataOf(given.data, sources, refuse, sources.proven.has(definition))
  return new Scenario(name, given.description, kind, overrides, settings, make, {
    loadSources: () => seedSourcesFor(sources.catalog),
    making,
    tables: sources.tables,
  })
}

/** The keys of seed options as a scenario's data (`{ seed, counts }`). */
const SEED_KEYS: ReadonlySet<string> = new Set(['seed', 'counts'] satisfies (keyof SeedData)[])

/**
 * Whether a definition's data is generated from seed options (`{ seed, counts }`): what needs
 * faker, which a browser loads on demand.
 */
export function isSeedData(data: unknown): data is SeedData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false
  const keys = Object.keys(data)
  return keys.length > 0 && keys.every((key) => SEED_KEYS.has(key))
}

/** What a scenario's data is, and how it is made (checked now, made now or on first use). */
function dataOf(
  data: unknown,
  sources: ScenarioSources,
  refuse: (field: string, problem: string) => TypeError,
  proven: boolean,
): [ScenarioSummary['sets']['data'], () => Snapshot, (() => Generator<void, Snapshot>)?] {
  const { catalog } = sources
  if (data === undefined) return [null, () => sources.seed]
  if (typeof data === 'function') {
    const make = () => {
      const store = new Store(sources.tables, sources.seed)
      let returned: unknown
      try {
        returned = (data as (db: Store) => unknown)(store)
      } catch (error) {
        throw refuse('data', `the function ${thrown(error)}`)
      }
      if (isThenable(returned)) {
        // Its changes after the first await would land in a store no one reads: said, not lost.
        Promise.resolve(returned).catch(() => {})
        throw refuse(
          'data',
          'the function returned a promise: it must change the store before it returns (an async function is not waited for)',
        )
      }
      const check = checkSnapshot(catalog, store.snapshot())
      if (!check.ok)
        throw refuse('data', `the data it made break the API's rules: ${check.problem}`)
      return freezeDocument(store.snapshot())
    }
    if (proven) return ['function', make]
    // Run now: a scenario whose data break the API's rules is refused when the sandbox is made.
    const made = make()
    return ['function', () => made]
  }
  // A document saved from `GET /__sandbox/db` as it came, envelope and all (C5: "as it gives it").
  data = unwrapped(data)
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw refuse('data', 'must be a document, seed options ({ seed, counts }) or a function')
  const keys = Object.keys(data)
  const stray = keys.find((key) => !SEED_KEYS.has(key))
  if (stray !== undefined && keys.some((key) => SEED_KEYS.has(key)))
    throw refuse(
      `data.${clip(stray)}`,
      'is not a seed option; data is seed options (seed, counts) or a document, not both',
    )
  if (isSeedData(data)) {
    const { seed, counts = {} } = data
    if (typeof counts !== 'object' || counts === null || Array.isArray(counts))
      throw refuse('data.counts', 'must be record counts by resource name ({ users: 10000 })')
    for (const resource of Object.keys(counts))
      if (!catalog.names.includes(resource))
        throw refuse(
          `data.counts.${clip(resource)}`,
          `no resource named ${clip(resource)} (resources: ${catalog.names.join(', ')})`,
        )
    const options = { ...counts, ...(seed === undefined ? {} : { seed }) }
    let resolved: Record<string, number>
    try {
      resolved = resolveSeedOptions(catalog, options)
    } catch (error) {
      throw refuse('data', error instanceof OptionsError ? error.detail : (error as Error).message)
    }
    // Weighed now, and again when made (the heap's room may have shrunk by then: 429).
    const heavy = seedWeightProblem(catalog, resolved)
    if (heavy) throw refuse('data.counts', heavy)
    function* making(): Generator<void, Snapshot> {
      try {
        return yield* seedingDocument(catalog, options)
      } catch (error) {
        if (!(error instanceof SeedTooLarge)) throw error
        throw ApiError.of('rateLimited', refuse('data.counts', error.problem).message)
      }
    }
    return ['seed', () => whole(making()), making]
  }
  // A collection the API lacks would be dropped without a word; PUT /__sandbox/db refuses it too.
  const stranger = unknownCollection(catalog, data)
  if (stranger !== null) throw refuse('data', stranger)
  const check = checkSnapshot(catalog, data)
  if (!check.ok) throw refuse('data', check.problem)
  const document = check.document as Document
  return [
    'document',
    () => {
      // A document without id sequences continues after its highest ids.
      const store = new Store(sources.tables, document)
      return freezeDocument(store.snapshot())
    },
  ]
}
