import type { ProgressReporter } from './progress.js'
import type { Row, TableChange, UniqueKey } from './table.js'
import { Table } from './table.js'

/** A change to one of a store's tables, in the order the store made them. */
export interface StoreChange {
  table: string
  change: TableChange
}

/** The whole data set as one JSON document: collection name → records (`GET /__sandbox/db`). */
export type Document = Record<string, readonly Row[]>

/** A document plus the id sequences, so a restore continues exactly where the snapshot was. */
export type Snapshot = Document & { nextIds: Record<string, number> }

/**
 * Freezes a document's lists and the document itself (the records are deep-frozen by the first
 * table that loads them): what a sandbox hands out and trusts back, and what tables load again
 * without checking it (Table `load`).
 */
export function freezeDocument<D extends Document>(document: D): D {
  for (const list of Object.values(document)) Object.freeze(list)
  return Object.freeze(document)
}

/** How one collection is stored: its unique keys and grouping indexes. */
export interface TableSpec {
  name: string
  unique?: Readonly<Record<string, (record: Row) => UniqueKey | undefined>>
  groups?: Readonly<Record<string, (record: Row) => number>>
}

/** Key under which a value unique case-insensitively is kept. */
export function foldCase(value: string): string {
  const folded = value.toLowerCase()
  // Keep the original when nothing changed: the index then holds no second copy of the string.
  return folded === value ? value : folded
}

/**
 * One sandbox's data: a {@link Table} per collection, in the order of the specs. Writes go
 * through the tables; call {@link Store.changed} after a logical change so subscribers
 * (persistence, cross-tab sync) hear about it once. Each table is also a property named after
 * its collection (`store.users`).
 *
 * @example
 * store.table('users').get(1)
 */
export class Store {
  readonly #tables = new Map<string, Table<Row, string, string>>()
  readonly #listeners = new Set<() => void>()
  /** Changes made since they were last taken, while tracked (see {@link track}). */
  #changes: StoreChange[] = []
  /** How many changes were ever made while tracked: each change's sequence number is its count. */
  #sequence = 0
  /** While set, tracked tables' changes are not recorded (data the file already holds). */
  #muted = false

  constructor(specs: readonly TableSpec[], snapshot?: Document, onProgress?: ProgressReporter) {
    for (const spec of specs) {
      const table = new Table<Row, string, string>({
        name: spec.name,
        unique: Object.fromEntries(
          Object.entries(spec.unique ?? {}).map(([name, key]) => [name, { key }]),
        ),
        groups: Object.fromEntries(
          Object.entries(spec.groups ?? {}).map(([name, key]) => [name, { key }]),
        ),
      })
      this.#tables.set(spec.name, table)
      Object.defineProperty(this, spec.name, { value: table, enumerable: false })
    }
    if (snapshot) this.restore(snapshot, onProgress)
  }

  /**
   * Starts recording every change of every table (a data file or browser storage makes them
   * durable, and undoes those it could not): {@link takeChanges} hands them over in order.
   */
  track(): void {
    for (const [name, table] of this.#tables) {
      table.observe((change) => {
        if (this.#muted) return
        this.#changes.push({ table: name, change })
        this.#sequence++
      })
    }
  }

  /** Runs `change` without recording what it changes (e.g. loading data a file already holds). */
  untracked<T>(change: () => T): T {
    const muted = this.#muted
    this.#muted = true
    try {
      return change()
    } finally {
      this.#muted = muted
    }
  }

  /** The id each table's next insert gets. */
  nextIds(): Record<string, number> {
    const nextIds: Record<string, number> = {}
    for (const [name, table] of this.#tables) nextIds[name] = table.nextId
    return nextIds
  }

  /** The number of the newest change made while tracked (0 before any). */
  get sequence(): number {
    return this.#sequence
  }

  /** The changes made since the last call, oldest first (tracked stores only). */
  takeChanges(): StoreChange[] {
    const changes = this.#changes
    this.#changes = []
    return changes
  }

  /** Undoes changes (taken or not), newest first, so the data is as it was before the oldest. */
  undo(changes: readonly StoreChange[]): void {
    // Each run of one table's changes goes to the table whole (it puts deleted records back in
    // one pass: Table `undoAll`), the newest run first.
    let end = changes.length
    while (end > 0) {
      const { table } = changes[end - 1]!
      let start = end - 1
      while (start > 0 && changes[start - 1]!.table === table) start--
      this.table(table).undoAll(changes.slice(start, end).map(({ change }) => change))
      end = start
    }
  }

  /** The table of a collection; throws for a name the store does not have. */
  table<T extends Row = Row>(name: string): Table<T, string, string> {
    const table = this.#tables.get(name)
    if (!table) throw new Error(`no collection named ${name}`)
    return table as unknown as Table<T, string, string>
  }

  /** The collection names, in order. */
  get names(): string[] {
    return [...this.#tables.keys()]
  }

  /** Estimated bytes of the tables' own structures (indexes, caches; not the shared records). */
  get estimatedBytes(): number {
    let bytes = 0
    for (const table of this.#tables.values()) bytes += table.estimatedBytes
    return bytes
  }

  /** Records in all collections. */
  get size(): number {
    let size = 0
    for (const table of this.#tables.values()) size += table.size
    return size
  }

  /** Records per collection. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const [name, table] of this.#tables) counts[name] = table.size
    return counts
  }

  /** A copy of the data and id sequences. Records are frozen, so this is cheap. */
  snapshot(): Snapshot {
    return { ...this.toJSON(), nextIds: this.nextIds() } as Snapshot
  }

  /** The data as one JSON document. */
  toJSON(): Document {
    const document: Record<string, Row[]> = {}
    for (const [name, table] of this.#tables) document[name] = [...table.rows()]
    return document
  }

  /** Replaces all data with a snapshot or a (validated) document, then notifies once. */
  restore(snapshot: Document, onProgress?: ProgressReporter): void {
    const nextIds = (snapshot as Partial<Snapshot>).nextIds as Record<string, number> | undefined
    let total = 0
    for (const name of this.#tables.keys()) total += snapshot[name]?.length ?? 0
    let done = 0
    const indexed =
      onProgress &&
      ((count: number) => {
        done += count
        onProgress('indexing', done, total)
      })
    for (const [name, table] of this.#tables)
      table.load(snapshot[name] ?? [], nextIds?.[name], indexed)
    this.changed()
  }

  /**
   * {@link restore}'s work on a document's records (sorted, checked, frozen, indexed) done ahead,
   * yielding after every `slice` records: restoring the document it returns takes no time (each
   * table shares the indexes made for it). The store itself does not change.
   */
  *preparing(snapshot: Document, slice: number): Generator<void, Document> {
    const prepared: Record<string, readonly Row[]> = {}
    for (const [name, table] of this.#tables)
      prepared[name] = yield* table.preparing(snapshot[name] ?? [], slice)
    const { nextIds } = snapshot as Partial<Snapshot>
    return (nextIds ? { ...prepared, nextIds } : prepared) as Document
  }

  /** Tells subscribers that the data changed. */
  changed(): void {
    for (const listener of this.#listeners) listener()
  }

  /** Calls `listener` after every change; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
