import type { ProgressReporter } from '../db/progress.js'
import type { Scenario } from './scenarios.js'
import type { Document, Snapshot, TableSpec } from '../db/store.js'
import { Store } from '../db/store.js'
import { Journal } from './journal.js'
import type { ParsedOverride } from './overrides/index.js'
import { Overrides } from './overrides/index.js'
import { createPrng, hashString } from './prng.js'
import type { RuntimeConfig } from './runtime-config.js'
import { withSettings } from './runtime-config.js'
import { Sessions } from './sessions.js'
import type { SandboxLimits } from './limits.js'
import { SESSION_BYTES } from './limits.js'
import { jsonFootprint } from '../contract/json-size.js'

/**
 * How long a request waits for a replacement (a scenario switch, a document) to read its body
 * and take its place in line before it, at most: a body sent with its headers takes a tick or
 * two; one that trickles in holds its sandbox's requests no longer than this.
 */
export const ARRIVAL_WAIT_MS = 250

/** A timer that does not keep Node's process alive (a number in a browser: nothing to do). */
function unref(timer: ReturnType<typeof setTimeout>): void {
  ;(timer as { unref?: () => void }).unref?.()
}

/** Records and indexes take about this many times the bytes of the JSON they came from. */
const WRITE_FACTOR = 3
/** Bytes every write costs besides its body (a replaced record, index entries). */
const WRITE_OVERHEAD = 512
/**
 * What a sandbox holds before any data of its own: its objects, maps, journal ring and random
 * generators (~20 KB measured for one in the `empty` scenario, Node 20).
 */
const INSTANCE_BYTES = 32 * 1024

/** What a document's records take in memory (estimated), each list counted once. */
const footprints = new WeakMap<object, number>()
function dataFootprint(document: Document): number {
  let bytes = 0
  for (const list of Object.values(document)) {
    let listBytes = footprints.get(list)
    if (listBytes === undefined) {
      listBytes = jsonFootprint(list).bytes
      // Frozen lists (a scenario's data) do not change: counted once.
      if (Object.isFrozen(list)) footprints.set(list, listBytes)
    }
    bytes += listBytes
  }
  return bytes
}

export interface InstanceOptions {
  /** The `X-Sandbox-Id` it serves; null for the default sandbox. */
  name: string | null
  /** How its collections are stored. */
  tables: readonly TableSpec[]
  /** The scenario it starts in (CONTRACT C5): the data, overrides and settings a reset returns to. */
  scenario: Scenario
  seedNumber: number
  config: RuntimeConfig
  tokenTtl: number
  clock: () => number
  limits: SandboxLimits
  /** Hears how loading the seed into this sandbox's indexes advances. */
  onProgress?: ProgressReporter | undefined
  /** Overrides every sandbox starts with (`--overrides`), again after a full reset, before its scenario's. */
  overrides?: readonly ParsedOverride[]
}

/** How the data file of a sandbox is doing (`GET /__sandbox`, CONTRACT C3). */
export interface PersistenceStatus {
  /** False while the file cannot be written. */
  ok: boolean
  /** Why the last write failed, e.g. `ENOSPC: no space left on device`. */
  error: string | null
  /** Whether changes are waiting to be written. */
  unsavedChanges: boolean
  /** When the file was last written (ISO 8601), null before the first write. */
  lastSavedAt: string | null
}

/** Where a sandbox's data is kept (the server's `--data` file, browser storage). */
export interface Persistence {
  readonly status: PersistenceStatus
  /**
   * Resolves once every change made so far is durable; rejects (after undoing them) when it
   * could not be: the write is then answered 503 / 50300 with the error's message.
   */
  commit(): Promise<void>
}

/** A document with the store's current id sequences when it brings none of its own. */
export function withSequences(document: Document, store: Store): Document {
  return (document as Partial<Snapshot>).nextIds === undefined
    ? ({ ...document, nextIds: store.nextIds() } as Snapshot)
    : document
}

/**
 * One sandbox's state: its data, sessions, request journal, runtime settings and the seeded
 * random streams for faults and delays. Each `X-Sandbox-Id` gets its own.
 */
export class SandboxInstance {
  readonly name: string | null
  readonly store: Store
  readonly sessions: Sessions
  readonly journal: Journal
  /** The overrides of CONTRACT C2: kept across data resets, dropped by a full reset. */
  readonly overrides: Overrides
  readonly limits: SandboxLimits
  /** The data file keeping this sandbox's data, if any (set by the server for `--data`). */
  persistence: Persistence | null = null
  config: RuntimeConfig
  /** The scenario it is in (CONTRACT C5): what a reset returns it to. */
  scenario: Scenario
  /** Decides fault injection; reseeded on reset and when the rates change. */
  faultRandom: () => number
  /** Draws delays within a range. */
  delayRandom: () => number
  readonly #options: InstanceOptions
  /** Estimated bytes of data written since the seed (documents and bodies of writes). */
  #written = 0
  /** Records it held when counted again and found full (0: not full). */
  #fullAt = 0

  constructor(options: InstanceOptions) {
    this.#options = options
    this.name = options.name
    this.limits = options.limits
    this.scenario = options.scenario
    this.store = new Store(options.tables, options.scenario.data(), options.onProgress)
    this.sessions = new Sessions(options.tokenTtl, options.clock, options.limits.maxSessions)
    this.journal = new Journal(options.limits.journal)
    this.overrides = new Overrides(options.limits.overrides)
    this.#startOverrides()
    this.config = this.#startConfig()
    this.faultRandom = this.#random(1)
    this.delayRandom = this.#random(2)
  }

  /**
   * Estimated bytes this sandbox holds beyond the shared seed records: its tables' indexes and
   * caches (sorted views, keyword texts), journal, sessions, overrides and written data.
   */
  get estimatedBytes(): number {
    return (
      INSTANCE_BYTES +
      this.store.estimatedBytes +
      this.journal.bytes +
      this.sessions.size * SESSION_BYTES +
      this.overrides.bytes +
      this.#written
    )
  }

  /**
   * Counts data a write added: a body or answer of \`bytes\` bytes (the larger: an order's answer
   * holds its items' names) becomes records and index entries.
   */
  wrote(bytes: number): void {
    this.#written += WRITE_OVERHEAD + bytes * WRITE_FACTOR
  }

  /**
   * Whether a write may add data (CONTRACT C3: data cannot grow until the process runs out of
   * memory). The running count only grows (deletes are not counted as they go), so past
   * \`limits.writtenBytes\` it is counted again from what the data hold against the scenario's: a
   * long-lived sandbox whose writes were deleted again has room. Found full, it is counted again
   * only once a sixteenth of its records are gone (or on a reset), so that walking the data costs
   * each delete a few microseconds, not each write a walk.
   */
  roomToWrite(): boolean {
    if (this.#written <= this.limits.writtenBytes) return true
    const rows = this.store.size
    if (this.#fullAt === 0 || rows <= this.#fullAt - Math.max(1, this.#fullAt >> 4)) {
      this.#written = Math.max(
        0,
        dataFootprint(this.store.toJSON()) - dataFootprint(this.scenario.data()),
      )
      this.#fullAt = this.#written > this.limits.writtenBytes ? Math.max(1, rows) : 0
    }
    return this.#fullAt === 0
  }

  /** Estimated bytes its writes added, as {@link roomToWrite} last counted them. */
  get writtenBytes(): number {
    return this.#written
  }

  /**
   * Replaces the data with a document of `bytes` bytes (already validated). Without id
   * sequences, those the sandbox has handed out stay (B1: ids are never reused).
   */
  replaceData(document: Parameters<Store['restore']>[0], bytes: number): void {
    this.store.restore(withSequences(document, this.store))
    this.#written = bytes * WRITE_FACTOR
    this.#fullAt = 0
  }

  /** The last replacement of this sandbox's data asked for: the next waits for it. */
  #replacing: Promise<void> = Promise.resolve()
  /** Replacements asked for that have not applied (or failed) yet. */
  #pending = 0

  /**
   * Replacements whose body is still being read, not in line yet ({@link arriving}), by the
   * order they arrived in: the first is the earliest.
   */
  readonly #arriving = new Set<number>()
  #arrivals = 0
  /**
   * The requests waiting for them, each with the arrival it waits for those before (the next to
   * come, for a request that replaces nothing): called once they are in line, or by its timer.
   */
  readonly #waiting = new Map<() => void, number>()

  /**
   * While a replacement asked for has not applied, the last one asked for: a request that
   * arrives now waits for it, so it is answered from the data it was sent after (a write sent
   * after a switch to `big`, answered 201 while `big` was being made, was then replaced by it).
   * While one still reads its body, the request first waits for it to take its place in line,
   * at most {@link ARRIVAL_WAIT_MS}: a switch whose body trickles in holds no one for longer.
   */
  get replacement(): Promise<void> | null {
    // Those that arrived before it: a switch arriving after this request holds it no longer.
    const ahead = this.#ahead(this.#arrivals + 1)
    if (ahead) return ahead.then(() => (this.#pending === 0 ? undefined : this.#replacing))
    return this.#pending === 0 ? null : this.#replacing
  }

  /** {@link #arrived} when a replacement that arrived before the arrival `number` reads its body. */
  #ahead(number: number): Promise<void> | null {
    return this.#arrivingBefore(number) ? this.#arrived(number) : null
  }

  /** Whether a replacement that arrived before the arrival `number` still reads its body. */
  #arrivingBefore(number: number): boolean {
    const first = this.#arriving.values().next().value
    return first !== undefined && first < number
  }

  /**
   * Resolves once the replacements that arrived before the arrival `number` are in line, or
   * after {@link ARRIVAL_WAIT_MS}: what a waiting request holds goes when it does (one entry in
   * {@link #waiting}), however many arrive and however long they take.
   */
  #arrived(number: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#waiting.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ARRIVAL_WAIT_MS)
      this.#waiting.set(done, number)
    })
  }

  /**
   * A replacement has arrived and reads its body before it takes its place in line: requests
   * arriving meanwhile wait for it ({@link replacement}). `ahead`: the replacements that arrived
   * before it and still read theirs, which it waits for in turn (at most as long), so that they
   * apply in the order they arrived. Call `arrived` once it has taken its place, or failed before
   * (more calls do nothing); after {@link ARRIVAL_WAIT_MS} it stops counting by itself (a body
   * read that never ends holds no one).
   */
  arriving(): { ahead: Promise<void> | null; arrived: () => void } {
    const number = ++this.#arrivals
    const ahead = this.#ahead(number)
    this.#arriving.add(number)
    const arrived = () => {
      clearTimeout(timer)
      if (!this.#arriving.delete(number)) return
      for (const [done, before] of [...this.#waiting]) if (!this.#arrivingBefore(before)) done()
    }
    const timer = setTimeout(arrived, ARRIVAL_WAIT_MS)
    unref(timer)
    return { ahead, arrived }
  }

  /**
   * Runs `work`, a replacement of the whole data (a scenario switch, a document, a reset), and
   * lets it apply (`turn()` resolves) only once every replacement asked for before it has:
   * they apply in the order they were asked for, whatever each takes to prepare. A switch to
   * `big` (its data made in ~1.4 s) asked for before one to `empty` used to apply after it,
   * over a write acknowledged in between.
   */
  async replacing<T>(work: (turn: () => Promise<void>) => Promise<T>): Promise<T> {
    const before = this.#replacing
    let done!: () => void
    this.#replacing = new Promise((resolve) => (done = resolve))
    this.#pending++
    try {
      return await work(() => before)
    } finally {
      // Its turn passes on once it applied or failed, and not before the one ahead of it did.
      void before.then(() => {
        this.#pending--
        done()
      })
    }
  }

  /** Replaces the data at once (a reset), in its turn ({@link replacing}). */
  inOrder(replace: () => void): Promise<void> {
    return this.replacing(async (turn) => {
      await turn()
      replace()
    })
  }

  /** Back to its scenario's data: sessions end and the random streams restart. */
  resetData(): void {
    this.#written = 0
    this.#fullAt = 0
    this.store.restore(this.scenario.data())
    this.sessions.clear()
    this.reseed()
  }

  /**
   * {@link resetData}, and the journal empties, the overrides and the settings return to its
   * scenario's (CONTRACT C5: a reset returns a sandbox to its scenario, not to `default`).
   */
  reset(): void {
    this.resetData()
    this.journal.clear()
    this.#startOverrides()
    this.config = this.#startConfig()
  }

  /**
   * Puts the sandbox in another scenario (CONTRACT C5): its data, overrides and settings replace
   * the sandbox's; sessions end; the journal stays (each entry names the scenario it was
   * answered in).
   */
  useScenario(scenario: Scenario): void {
    // Its data made first: a scenario that cannot be made (too large for the heap's room now)
    // leaves this sandbox as it was.
    scenario.data()
    this.followScenario(scenario)
    this.resetData()
  }

  /**
   * Puts the sandbox in `scenario` but for its data: its name, overrides and settings; sessions
   * end. The data come from elsewhere: saved in it by another tab (the browser's `persist`).
   */
  followScenario(scenario: Scenario): void {
    this.scenario = scenario
    this.sessions.clear()
    this.#startOverrides()
    this.config = this.#startConfig()
  }

  /**
   * Its scenario, overrides and settings as they are now: the function puts them back (a change
   * storage refused, undone with its data: the browser's `persist`).
   */
  hold(): () => void {
    const [scenario, config, overrides] = [this.scenario, this.config, this.overrides.saved()]
    return () => {
      this.scenario = scenario
      this.config = config
      overrides()
    }
  }

  /** The sandbox's own overrides, then its scenario's (already checked to fit together). */
  #startOverrides(): void {
    this.overrides.clear()
    for (const override of this.#options.overrides ?? []) this.overrides.add(override)
    for (const override of this.scenario.overrides) this.overrides.add(override)
  }

  /** The sandbox's settings with its scenario's applied. */
  #startConfig(): RuntimeConfig {
    return withSettings(this.#options.config, this.scenario.settings)
  }

  /** Changes runtime settings (already validated); new rates restart the fault stream. */
  configure(changes: Parameters<typeof withSettings>[1]): RuntimeConfig {
    this.config = withSettings(this.config, changes)
    if (changes.errorRate !== undefined || changes.dropRate !== undefined) this.reseed()
    return this.config
  }

  /** Restarts the fault and delay streams, so the same requests meet the same faults. */
  reseed(): void {
    this.faultRandom = this.#random(1)
    this.delayRandom = this.#random(2)
  }

  #random(stream: number): () => number {
    const name = this.#options.name ?? ''
    return createPrng(this.#options.seedNumber ^ hashString(`${name}#${stream}`))
  }
}
