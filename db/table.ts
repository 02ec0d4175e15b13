import { idMarksBytes } from './id-marks.js'
import { whole } from './progress.js'
import type { SortKey } from './sorted-index.js'
import { SortedIndex } from './sorted-index.js'
import type { GroupIndex, Row, TableChange, TableOptions, UniqueIndex, UniqueKey } from './row.js'
import { MAX_ID } from '../contract/fields.js'
import { deepFreeze, IdsExhausted, UniqueConflict } from './row.js'

/**
 * What a table's own structures cost per record, in bytes (measured with 30,000 users: a
 * unique index entry with its key about 50, a keyword text 24 plus its length, a sorted view's
 * entry 16 plus its key when that is a string of its own), and per group (its list and its
 * entry in the map: sandboxes in the `big` scenario, 20,000 orders in 10,000 groups, held ~0.6
 * MB more than counted without it). Rounded up: the estimate is the sandboxes' memory budget,
 * and an over-count only evicts sooner.
 */
const ROW_BYTES = 8
const UNIQUE_ENTRY_BYTES = 56
const GROUP_ENTRY_BYTES = 12
const GROUP_BYTES = 96
const DERIVED_BYTES = 24
const SORTED_ENTRY_BYTES = 16
/** Filters whose matches a table keeps between writes. */
const MATCH_CACHE_ENTRIES = 8

/** What a cached list of matches costs: a slot per record, its id marks (id-marks.ts), its key. */
function matchBytes(filter: string, list: readonly { id: number }[]): number {
  return ROW_BYTES * list.length + idMarksBytes(list) + 2 * filter.length + DERIVED_BYTES
}

/** What a derived text or a sort key costs besides its slot. */
function valueBytes(value: SortKey): number {
  return typeof value === 'string' ? DERIVED_BYTES + value.length : 0
}

export type { GroupIndex, Row, TableChange, TableOptions, UniqueIndex, UniqueKey } from './row.js'
export { deepFreeze, IdsExhausted, UniqueConflict } from './row.js'

/**
 * The records of one collection, with an id sequence that never reuses an id and the indexes
 * the hot paths need. Records live in one array in ascending id order: a lookup by id is O(1)
 * while ids are dense (record n sits at n - 1) and O(log n) after deletes. Unique keys and
 * groups are hash indexes. Every write keeps them in step. Records are deep-frozen: a change
 * replaces the record, so tables (and sandboxes) can share records safely.
 */
export class Table<T extends Row, U extends string = never, G extends string = never> {
  /** Every record, ascending by id. */
  readonly #rows: T[] = []
  // Lists, not maps by name: every write walks them, and a few names are found by a scan.
  readonly #unique: Array<{ name: U; index: UniqueIndex<T>; ids: Map<UniqueKey, number> }> = []
  readonly #groups: Array<{ name: G; index: GroupIndex<T>; ids: Map<number, number[]> }> = []
  /** Values derived from each record, aligned with the rows (built on first use). */
  readonly #derived = new Map<string, { compute(record: T): string; values: string[] }>()
  /** Sorted views by field (built on first use). */
  readonly #sorted = new Map<string, SortedIndex<T>>()
  /**
   * The records a filter matched, by the filter's key: kept until the next write, so the same
   * query asked again (a list page after page, a search as you type, many clients polling) skips
   * the scan while `total` stays exact. At most {@link MATCH_CACHE_ENTRIES}, the oldest dropped.
   */
  readonly #matches = new Map<string, readonly T[]>()
  /** What {@link all} handed out since the last write. */
  #all: readonly T[] | null = null
  #nextId = 1
  /** Whether the indexes are still a loaded list's (see `load`): copied before the first write. */
  #sharedIndexes = false
  /** Estimated bytes of the derived texts and sorted views (kept in step with every write). */
  #cacheBytes = 0
  /** Hears every change while set (a store keeping a data file tracks its tables). */
  #observer: ((change: TableChange<T>) => void) | null = null
  readonly name: string

  constructor(options: TableOptions<T, U, G> = {}) {
    this.name = options.name ?? 'records'
    for (const [name, index] of Object.entries(options.unique ?? {}) as Array<
      [U, UniqueIndex<T>]
    >) {
      this.#unique.push({ name, index, ids: new Map() })
    }
    for (const [name, index] of Object.entries(options.groups ?? {}) as Array<[G, GroupIndex<T>]>) {
      this.#groups.push({ name, index, ids: new Map() })
    }
  }

  /** Number of records. */
  get size(): number {
    return this.#rows.length
  }

  /**
   * Estimated bytes this table's own structures take (the records are shared between
   * sandboxes and not counted): the row list, the indexes, and the derived texts and sorted
   * views built so far. Indexes still shared with a loaded list (see `load`) are not its own
   * either, until its first write copies them.
   */
  get estimatedBytes(): number {
    const rows = this.#rows.length * ROW_BYTES + this.#cacheBytes
    if (this.#sharedIndexes) return rows
    let groups = 0
    for (const { ids } of this.#groups) groups += ids.size
    const entries =
      this.#unique.length * UNIQUE_ENTRY_BYTES + this.#groups.length * GROUP_ENTRY_BYTES
    return rows + this.#rows.length * entries + groups * GROUP_BYTES
  }

  /** Sets (or, with null, removes) the one observer of this table's changes. */
  observe(observer: ((change: TableChange<T>) => void) | null): void {
    this.#observer = observer
  }

  /**
   * Undoes a change this table made (the newest first, when undoing several): the record as it
   * was, or the table as it was before a load. The id sequence stays where it is: an id handed
   * out once is never handed out again. Observers do not hear an undo.
   */
  undo(change: TableChange<T>): void {
    this.undoAll([change])
  }

  #undoOne(change: TableChange<T>): void {
    if (change.kind === 'load') {
      const nextId = this.#nextId
      this.load(change.before)
      this.#nextId = Math.max(nextId, change.beforeNextId, this.#nextId)
    } else if (change.before === undefined) this.delete(change.id)
    else if (this.get(change.id)) this.replace(change.before)
    else this.#put(change.before)
  }

  /**
   * The records `filter` accepts, in id order: computed by `scan`, then kept until the next
   * write changes the table (any write empties the cache: a filter's answer can depend on any
   * record).
   */
  matching(filter: string, scan: () => readonly T[]): readonly T[] {
    const cached = this.#matches.get(filter)
    if (cached) return cached
    const found = scan()
    if (this.#matches.size >= MATCH_CACHE_ENTRIES) {
      const [oldest, list] = this.#matches.entries().next().value!
      this.#cacheBytes -= matchBytes(oldest, list)
      this.#matches.delete(oldest)
    }
    this.#matches.set(filter, found)
    this.#cacheBytes += matchBytes(filter, found)
    return found
  }

  /** Forgets what filters matched and the list {@link all} handed out: called by every write. */
  #changed(): void {
    this.#all = null
    if (this.#matches.size === 0) return
    for (const [filter, list] of this.#matches) this.#cacheBytes -= matchBytes(filter, list)
    this.#matches.clear()
  }

  /**
   * Undoes a run of this table's changes, oldest first in the list, newest undone first:
   * deleted records next to each other in the run are put back in one pass. One by one, each found its place from the end and shifted the rows: undoing a cascade
   * that deleted 20,000 orders (a write that could not be made durable) was quadratic.
   */
  undoAll(changes: readonly TableChange<T>[]): void {
    const observer = this.#observer
    this.#observer = null
    try {
      let deleted: T[] = []
      const ids = new Set<number>()
      const putBack = () => {
        if (deleted.length === 1) this.#put(deleted[0]!)
        else if (deleted.length > 1) this.#putMany(deleted)
        deleted = []
        ids.clear()
      }
      for (let index = changes.length - 1; index >= 0; index--) {
        const change = changes[index]!
        if (
          change.kind === 'record' &&
          change.after === undefined &&
          change.before !== undefined &&
          !ids.has(change.id) &&
          !this.get(change.id)
        ) {
          deleted.push(change.before)
          ids.add(change.id)
        } else {
          putBack()
          this.#undoOne(change)
        }
      }
      putBack()
    } finally {
      this.#observer = observer
    }
  }

  /**
   * Puts back records that were deleted (none of them stored), with their index entries, in one
   * merge into the rows; the derived texts and sorted views are dropped (built again on first
   * use). Refused by a unique key as {@link #put} is, the records before it are put back.
   */
  #putMany(records: readonly T[]): void {
    this.#changed()
    let indexed = 0
    try {
      for (const record of records) {
        this.#assertUnique(record)
        this.#index(record)
        indexed++
      }
    } finally {
      const added = records.slice(0, indexed).sort((a, b) => a.id - b.id)
      const rows = this.#rows
      // Merged from the end, in place: the rows grow by the records, then fill from the back.
      let from = rows.length - 1
      let next = added.length - 1
      for (const record of added) rows.push(record)
      for (let to = rows.length - 1; next >= 0; to--)
        rows[to] = from >= 0 && rows[from]!.id > added[next]!.id ? rows[from--]! : added[next--]!
      this.#derived.clear()
      this.#sorted.clear()
      this.#cacheBytes = 0
    }
  }

  /** Puts back a record that was deleted, at its place in id order, with its index entries. */
  #put(record: T): void {
    this.#changed()
    let position = this.#rows.length
    while (position > 0 && this.#rows[position - 1]!.id > record.id) position--
    this.#assertUnique(record)
    this.#index(record)
    this.#rows.splice(position, 0, record)
    this.#derive(record, (entry, value) => {
      entry.values.splice(position, 0, value)
      this.#cacheBytes += valueBytes(value)
    })
    this.#cacheBytes += this.#sortedCost(record)
    for (const index of this.#sorted.values()) index.add(record)
  }

  /** The id the next insert gets. */
  get nextId(): number {
    return this.#nextId
  }

  /** The record with this id, if any. */
  get(id: number): T | undefined {
    const position = this.#position(id)
    return position < 0 ? undefined : this.#rows[position]
  }

  /**
   * Every record in ascending id order: a frozen list of its own (made again after a write), so
   * sorting it or deleting while walking it changes nothing of the table's.
   */
  all(): readonly T[] {
    return (this.#all ??= Object.freeze([...this.#rows]))
  }

  /**
   * Every record in ascending id order: the table's own list, live (every write changes it), for
   * the readers that walk it on every request. Only to read, at once; {@link all} otherwise.
   */
  rows(): readonly T[] {
    return this.#rows
  }

  /** The record holding `key` in the unique index `index`, if any. */
  findUnique(index: U, key: UniqueKey): T | undefined {
    const id = this.#unique.find((unique) => unique.name === index)?.ids.get(key)
    return id === undefined ? undefined : this.get(id)
  }

  /** Ids of the records filed under `key` in the group index `index`, ascending. */
  group(index: G, key: number): number[] {
    return [...(this.#groups.find((group) => group.name === index)?.ids.get(key) ?? [])].sort(
      (a, b) => a - b,
    )
  }

  /**
   * `compute(record)` for every record, aligned with {@link all}: computed once, then kept in
   * step with every write (e.g. the lowercase text a keyword search scans).
   */
  derived(name: string, compute: (record: T) => string): readonly string[] {
    let entry = this.#derived.get(name)
    if (!entry) {
      entry = { compute, values: this.#rows.map(compute) }
      for (const value of entry.values) this.#cacheBytes += valueBytes(value)
      this.#derived.set(name, entry)
    }
    return entry.values
  }

  /**
   * Each kept derivation's value for a record being written, handed to `place`. One that throws
   * (a resource's own `keyword` function) is let go whole, to be made again when next asked (and
   * throw there, a 500 for that query): never kept with a value missing, which left every later
   * keyword search reading the wrong record's text.
   */
  #derive(
    record: T,
    place: (entry: { compute(record: T): string; values: string[] }, value: string) => void,
  ): void {
    for (const [name, entry] of this.#derived) {
      let value: string
      try {
        value = entry.compute(record)
      } catch {
        for (const kept of entry.values) this.#cacheBytes -= valueBytes(kept)
        this.#derived.delete(name)
        continue
      }
      place(entry, value)
    }
  }

  /**
   * The records sorted by (`key`, id) ascending: sorted once, then kept in step with every
   * write, so a sorted page never sorts the whole table.
   */
  sortedBy(name: string, key: (record: T) => SortKey): SortedIndex<T> {
    let index = this.#sorted.get(name)
    if (!index) {
      index = new SortedIndex(key, this.#rows)
      for (const record of this.#rows)
        this.#cacheBytes += SORTED_ENTRY_BYTES + valueBytes(key(record))
      this.#sorted.set(name, index)
    }
    return index
  }

  /**
   * Stores a new record under the next id and returns it, `values` then `extra` (fields set
   * last, such as timestamps: one copy, not two); past {@link MAX_ID}, {@link IdsExhausted}.
   */
  insert(values: Omit<T, 'id'>, extra?: Partial<T>): T {
    if (this.#nextId > MAX_ID) throw new IdsExhausted(this.name)
    const made = { id: this.#nextId, ...values, ...extra } as Record<string, unknown>
    // The sequence's id always wins (id stays the first key): one among the values is ignored.
    made.id = this.#nextId
    const record = deepFreeze(made as unknown as T)
    this.#assertUnique(record)
    this.#changed()
    this.#index(record)
    this.#rows.push(record)
    this.#derive(record, (entry, value) => {
      entry.values.push(value)
      this.#cacheBytes += valueBytes(value)
    })
    this.#cacheBytes += this.#sortedCost(record)
    for (const index of this.#sorted.values()) index.add(record)
    this.#nextId += 1
    this.#observer?.({ kind: 'record', id: record.id, before: undefined, after: record })
    return record
  }

  /** Replaces the stored record that has the same id. */
  replace(record: T): T {
    const position = this.#position(record.id)
    if (position < 0) throw new Error(`Cannot replace record ${record.id}: no such record`)
    deepFreeze(record)
    this.#assertUnique(record)
    const previous = this.#rows[position]!
    this.#changed()
    this.#unindex([previous])
    this.#index(record)
    this.#rows[position] = record
    this.#cacheBytes += this.#sortedCost(record) - this.#sortedCost(previous)
    this.#derive(record, (entry, value) => {
      this.#cacheBytes += valueBytes(value) - valueBytes(entry.values[position]!)
      entry.values[position] = value
    })
    for (const index of this.#sorted.values()) {
      index.remove(previous)
      index.add(record)
    }
    this.#observer?.({ kind: 'record', id: record.id, before: previous, after: record })
    return record
  }

  /** Removes and returns the record with this id. */
  delete(id: number): T | undefined {
    const position = this.#position(id)
    if (position < 0) return undefined
    this.#changed()
    const [record] = this.#rows.splice(position, 1)
    this.#unindex([record!])
    for (const entry of this.#derived.values())
      this.#cacheBytes -= valueBytes(entry.values.splice(position, 1)[0]!)
    this.#removed(record!)
    return record
  }

  /**
   * Removes the records with these ids (ids not stored are skipped) and returns them, in the
   * order given: one pass over the rows and over each group they were in, where deleting them
   * one by one would shift the rows and copy the group once per record (a user with 20,000
   * orders: seconds with the event loop held).
   */
  deleteMany(ids: Iterable<number>): T[] {
    const removed: T[] = []
    const doomed = new Set<number>()
    for (const id of ids) {
      const position = this.#position(id)
      if (position < 0 || doomed.has(id)) continue
      doomed.add(id)
      removed.push(this.#rows[position]!)
    }
    if (removed.length <= 1) {
      if (removed.length === 1) this.delete(removed[0]!.id)
      return removed
    }
    this.#changed()
    const rows = this.#rows
    const derived = [...this.#derived.values()]
    let kept = 0
    for (let position = 0; position < rows.length; position++) {
      const record = rows[position]!
      if (doomed.has(record.id)) {
        for (const entry of derived) this.#cacheBytes -= valueBytes(entry.values[position]!)
        continue
      }
      for (const entry of derived) entry.values[kept] = entry.values[position]!
      rows[kept++] = record
    }
    rows.length = kept
    for (const entry of derived) entry.values.length = kept
    this.#unindex(removed)
    for (const record of removed) this.#removed(record)
    return removed
  }

  /** A record out of the rows: out of the sorted views too, and the observer told. */
  #removed(record: T): void {
    this.#cacheBytes -= this.#sortedCost(record)
    for (const index of this.#sorted.values()) index.remove(record)
    this.#observer?.({ kind: 'record', id: record.id, before: record, after: undefined })
  }

  /**
   * Replaces every record (in any order) and sets the id sequence (at least one past the highest
   * id). A frozen list loaded before is not checked and indexed again: its indexes are shared
   * until this table's first write ({@link loadedIndexes}).
   */
  load(records: readonly T[], nextId = 0, onIndexed?: (count: number) => void): void {
    const observer = this.#observer
    const before = observer ? [...this.#rows] : []
    const beforeNextId = this.#nextId
    this.#rows.length = 0
    this.#all = null
    this.#derived.clear()
    this.#sorted.clear()
    this.#matches.clear()
    this.#cacheBytes = 0
    const sorted = isAscending(records) ? records : [...records].sort((a, b) => a.id - b.id)
    const frozen = Object.isFrozen(records)
    const loaded = frozen ? loadedIndexes.get(records) : undefined
    if (loaded && this.#shareIndexes(loaded)) {
      for (const record of sorted) this.#rows.push(record)
      for (let left = sorted.length; left > 0; left -= 5000) onIndexed?.(Math.min(left, 5000))
    } else {
      this.#indexAll(sorted, onIndexed)
      // The second load of a list keeps its indexes for the loads after it.
      if (frozen)
        loadedIndexes.set(records, loaded === undefined ? null : this.#keepIndexes(loaded))
    }
    this.#nextId = Math.max(nextId, (this.#rows.at(-1)?.id ?? 0) + 1)
    observer?.({ kind: 'load', before, beforeNextId })
  }

  /** Checks and indexes records in ascending id order, deep-freezing each, into empty rows. */
  #indexAll(sorted: readonly T[], onIndexed?: (count: number) => void): void {
    whole(this.#indexing(sorted, onIndexed))
  }

  /** {@link #indexAll}, yielding after every `slice` records. */
  *#indexing(
    sorted: readonly T[],
    onIndexed?: (count: number) => void,
    slice = Number.POSITIVE_INFINITY,
  ): Generator<void, void> {
    // New maps, not cleared ones: the old may be a loaded list's, shared.
    for (const entry of this.#unique) entry.ids = new Map()
    for (const entry of this.#groups) entry.ids = new Map()
    this.#sharedIndexes = false
    for (const [position, record] of sorted.entries()) {
      if (sorted[position - 1]?.id === record.id) throw new Error(`Duplicate id ${record.id}`)
      deepFreeze(record)
      this.#assertUnique(record)
      this.#index(record)
      this.#rows.push(record)
      if (position % 5000 === 4999) onIndexed?.(5000)
      if (position % slice === slice - 1) yield
    }
    onIndexed?.(sorted.length % 5000)
    // A group's list grew by push, with room for some 16 more ids: at 100,000 users with two
    // orders each, ~12 MB of room no one uses. Each is copied to its size once loaded.
    for (const { ids } of this.#groups)
      for (const [key, members] of ids) if (members.length > 1) ids.set(key, members.slice())
  }

  /**
   * What {@link load} does to `records` (sorted, checked, frozen, indexed) done ahead, on a table
   * of its own, yielding after every `slice` records: loading the list it returns then shares
   * those indexes and takes no time. A document of 8 MB (`PUT /__sandbox/db`) is made ready
   * this way with the event loop given back between slices.
   */
  *preparing(records: readonly T[], slice: number): Generator<void, readonly T[]> {
    const list = isAscending(records) ? [...records] : [...records].sort((a, b) => a.id - b.id)
    const twin = new Table<T, U, G>({
      name: this.name,
      unique: Object.fromEntries(this.#unique.map(({ name, index }) => [name, index])) as Record<
        U,
        UniqueIndex<T>
      >,
      groups: Object.fromEntries(this.#groups.map(({ name, index }) => [name, index])) as Record<
        G,
        GroupIndex<T>
      >,
    })
    yield* twin.#indexing(list, undefined, slice)
    loadedIndexes.set(Object.freeze(list), twin.#keepIndexes(null))
    return list
  }

  /**
   * What was kept of a list's indexes, with this table's added: kept as they are, shared from
   * now on (this table copies them before its first write, as every table sharing them does).
   */
  #keepIndexes(loaded: LoadedIndexes | null): LoadedIndexes {
    const kept: LoadedIndexes = {
      unique: new Map(loaded?.unique),
      groups: new Map(loaded?.groups),
    }
    for (const { index, ids } of this.#unique) kept.unique.set(index.key, ids)
    for (const { index, ids } of this.#groups) kept.groups.set(index.key, ids)
    this.#sharedIndexes = true
    return kept
  }

  /**
   * Takes a list's kept indexes as this table's, if it has every one of them: shared until this
   * table's first write copies them ({@link #ownIndexes}), so a sandbox that only reads copies
   * nothing.
   */
  #shareIndexes(loaded: LoadedIndexes): boolean {
    const has = (key: unknown, kept: ReadonlyMap<unknown, unknown>) => kept.has(key)
    if (!this.#unique.every(({ index }) => has(index.key, loaded.unique))) return false
    if (!this.#groups.every(({ index }) => has(index.key, loaded.groups))) return false
    for (const entry of this.#unique)
      entry.ids = loaded.unique.get(entry.index.key) as Map<UniqueKey, number>
    for (const entry of this.#groups)
      entry.ids = loaded.groups.get(entry.index.key) as Map<number, number[]>
    this.#sharedIndexes = true
    return true
  }

  /** Makes the indexes this table's own before it changes them, if they are still shared. */
  #ownIndexes(): void {
    if (!this.#sharedIndexes) return
    for (const entry of this.#unique) entry.ids = new Map(entry.ids)
    for (const entry of this.#groups) entry.ids = copyGroups(entry.ids)
    this.#sharedIndexes = false
  }

  /** What one record costs the sorted views built so far. */
  #sortedCost(record: T): number {
    let bytes = 0
    for (const index of this.#sorted.values())
      bytes += SORTED_ENTRY_BYTES + valueBytes(index.key(record))
    return bytes
  }

  /**
   * The first unique index where another record than the one with id `id` (by default
   * `record`'s own; 0 for one not stored yet) already holds `record`'s key, if any.
   */
  conflict(
    record: T,
    id: number = record.id,
  ): { index: U; key: UniqueKey; holder: number } | undefined {
    for (const { name: index, index: unique, ids } of this.#unique) {
      const key = unique.key(record)
      if (key === undefined) continue
      const holder = ids.get(key)
      if (holder !== undefined && holder !== id) return { index, key, holder }
    }
    return undefined
  }

  #assertUnique(record: T): void {
    const conflict = this.conflict(record)
    if (conflict) {
      const { index, key, holder } = conflict
      throw new UniqueConflict(
        this.name,
        index,
        key,
        holder,
        (record as Record<string, unknown>)[index],
      )
    }
  }

  #index(record: T): void {
    this.#ownIndexes()
    for (const { index, ids } of this.#unique) {
      const key = index.key(record)
      if (key !== undefined) ids.set(key, record.id)
    }
    for (const { index, ids } of this.#groups) {
      const key = index.key(record)
      const members = ids.get(key)
      if (members) members.push(record.id)
      else ids.set(key, [record.id])
    }
  }

  /** Takes records out of the indexes: each group they were in is copied once, without them. */
  #unindex(records: readonly T[]): void {
    this.#ownIndexes()
    for (const { index, ids } of this.#unique)
      for (const record of records) {
        const key = index.key(record)
        if (key !== undefined) ids.delete(key)
      }
    const many = records.length === 1 ? null : new Set(records.map(({ id }) => id))
    const gone = (id: number) => (many ? many.has(id) : id === records[0]!.id)
    for (const { index, ids } of this.#groups) {
      const keys =
        records.length === 1
          ? [index.key(records[0]!)]
          : new Set(records.map((record) => index.key(record)))
      for (const key of keys) {
        const members = ids.get(key)?.filter((id) => !gone(id))
        if (members?.length) ids.set(key, members)
        else ids.delete(key)
      }
    }
  }

  /** Where `id` sits in the rows, or -1: O(1) while ids are dense, else a binary search. */
  #position(id: number): number {
    const rows = this.#rows
    const guess = id - 1
    if (rows[guess]?.id === id) return guess
    let low = 0
    let high = Math.min(rows.length - 1, guess)
    while (low <= high) {
      const middle = (low + high) >>> 1
      const found = rows[middle]!.id
      if (found === id) return middle
      if (found < id) low = middle + 1
      else high = middle - 1
    }
    return -1
  }
}

/**
 * The indexes frozen lists of records were loaded into, by list and by each index's key function:
 * a table loading such a list again (every X-Sandbox-Id sandbox restored from a shared scenario
 * or seed, every reset) shares them until its first write, instead of computing each record's
 * keys and checking it again (a new sandbox in the `big` scenario, 31,000 records, took ~20 ms,
 * most of it there). A frozen list holds frozen records (its first load deep-froze them) and
 * cannot change, so what it was indexed into still holds. Null: loaded once (a list loaded once
 * keeps no copy). Kept as long as the list is.
 */
const loadedIndexes = new WeakMap<readonly Row[], LoadedIndexes | null>()

interface LoadedIndexes {
  unique: Map<unknown, ReadonlyMap<UniqueKey, number>>
  groups: Map<unknown, ReadonlyMap<number, readonly number[]>>
}

/** A group index's copy: a list of its own per key (the table pushes to them). */
function copyGroups(groups: ReadonlyMap<number, readonly number[]>): Map<number, number[]> {
  const copy = new Map(groups) as Map<number, number[]>
  for (const [key, members] of copy) copy.set(key, members.slice())
  return copy
}

function isAscending(records: readonly Row[]): boolean {
  for (let i = 1; i < records.length; i++) {
    if (records[i - 1]!.id >= records[i]!.id) return false
  }
  return true
}
