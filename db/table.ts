/** A record kept in a table: immutable once stored, identified by its id. */
export interface Row {
  readonly id: number
}

/** A unique secondary index: one key per record, at most one record per key. */
export interface UniqueIndex<T> {
  key(record: T): string
}

/** A grouping index: each record files under zero or more keys (e.g. an order under its owner). */
export interface GroupIndex<T> {
  keys(record: T): Iterable<number>
}

export interface TableOptions<T extends Row, U extends string, G extends string> {
  unique?: Record<U, UniqueIndex<T>>
  groups?: Record<G, GroupIndex<T>>
}

/**
 * The records of one collection, with an id sequence that never reuses an id and the indexes
 * the hot paths need: by id, by each unique key, and by group. Lookups are O(1) and every
 * write keeps the indexes in step. Records are frozen: a change replaces the record.
 */
export class Table<T extends Row, U extends string = never, G extends string = never> {
  readonly #rows = new Map<number, T>()
  /** The same records in ascending id order, kept in step by every write. */
  readonly #ordered: T[] = []
  readonly #unique = new Map<U, { index: UniqueIndex<T>; ids: Map<string, number> }>()
  readonly #groups = new Map<G, { index: GroupIndex<T>; ids: Map<number, Set<number>> }>()
  #nextId = 1

  constructor(options: TableOptions<T, U, G> = {}) {
    for (const [name, index] of Object.entries(options.unique ?? {}) as Array<
      [U, UniqueIndex<T>]
    >) {
      this.#unique.set(name, { index, ids: new Map() })
    }
    for (const [name, index] of Object.entries(options.groups ?? {}) as Array<[G, GroupIndex<T>]>) {
      this.#groups.set(name, { index, ids: new Map() })
    }
  }

  /** Number of records. */
  get size(): number {
    return this.#rows.size
  }

  /** The id the next insert gets. */
  get nextId(): number {
    return this.#nextId
  }

  /** The record with this id, if any. */
  get(id: number): T | undefined {
    return this.#rows.get(id)
  }

  /** Every record in ascending id order. A live view: copy it before holding on to it. */
  all(): readonly T[] {
    return this.#ordered
  }

  /** The record holding `key` in the unique index `index`, if any. */
  findUnique(index: U, key: string): T | undefined {
    const id = this.#unique.get(index)?.ids.get(key)
    return id === undefined ? undefined : this.#rows.get(id)
  }

  /** Ids of the records filed under `key` in the group index `index`, ascending. */
  group(index: G, key: number): number[] {
    const ids = this.#groups.get(index)?.ids.get(key)
    return ids ? [...ids].sort((a, b) => a - b) : []
  }

  /** How many records are filed under `key` in the group index `index`. */
  groupSize(index: G, key: number): number {
    return this.#groups.get(index)?.ids.get(key)?.size ?? 0
  }

  /** Stores a new record under the next id and returns it. */
  insert(values: Omit<T, 'id'>): T {
    const record = deepFreeze({ id: this.#nextId, ...values } as unknown as T)
    this.#assertUnique(record)
    this.#index(record)
    this.#rows.set(record.id, record)
    this.#ordered.push(record)
    this.#nextId += 1
    return record
  }

  /** Replaces the stored record that has the same id. */
  replace(record: T): T {
    const previous = this.#rows.get(record.id)
    if (!previous) throw new Error(`Cannot replace record ${record.id}: no such record`)
    deepFreeze(record)
    this.#assertUnique(record)
    this.#unindex(previous)
    this.#index(record)
    this.#rows.set(record.id, record)
    this.#ordered[this.#position(record.id)] = record
    return record
  }

  /** Removes and returns the record with this id. */
  delete(id: number): T | undefined {
    const record = this.#rows.get(id)
    if (!record) return undefined
    this.#unindex(record)
    this.#rows.delete(id)
    this.#ordered.splice(this.#position(id), 1)
    return record
  }

  /** Replaces every record and sets the id sequence (at least one past the highest id). */
  load(records: readonly T[], nextId = 0): void {
    this.#rows.clear()
    this.#ordered.length = 0
    for (const { ids } of this.#unique.values()) ids.clear()
    for (const { ids } of this.#groups.values()) ids.clear()
    const sorted = isAscending(records) ? records : [...records].sort((a, b) => a.id - b.id)
    for (const record of sorted) {
      deepFreeze(record)
      if (this.#rows.has(record.id)) throw new Error(`Duplicate id ${record.id}`)
      this.#assertUnique(record)
      this.#index(record)
      this.#rows.set(record.id, record)
      this.#ordered.push(record)
    }
    const last = this.#ordered.at(-1)
    this.#nextId = Math.max(nextId, (last?.id ?? 0) + 1)
  }

  #assertUnique(record: T): void {
    for (const [name, { index, ids }] of this.#unique) {
      const holder = ids.get(index.key(record))
      if (holder !== undefined && holder !== record.id) {
        throw new Error(
          `Unique index "${name}" already holds "${index.key(record)}" (record ${holder})`,
        )
      }
    }
  }

  #index(record: T): void {
    for (const { index, ids } of this.#unique.values()) ids.set(index.key(record), record.id)
    for (const { index, ids } of this.#groups.values()) {
      for (const key of index.keys(record)) {
        const members = ids.get(key)
        if (members) members.add(record.id)
        else ids.set(key, new Set([record.id]))
      }
    }
  }

  #unindex(record: T): void {
    for (const { index, ids } of this.#unique.values()) ids.delete(index.key(record))
    for (const { index, ids } of this.#groups.values()) {
      for (const key of index.keys(record)) {
        const members = ids.get(key)
        members?.delete(record.id)
        if (members?.size === 0) ids.delete(key)
      }
    }
  }

  /** Index of `id` in the ordered array (binary search). */
  #position(id: number): number {
    let low = 0
    let high = this.#ordered.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const found = this.#ordered[middle]!.id
      if (found === id) return middle
      if (found < id) low = middle + 1
      else high = middle - 1
    }
    throw new Error(`Record ${id} is missing from the ordered index`)
  }
}

/** Freezes a JSON-like value and everything in it; frozen values are taken as already deep-frozen. */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  for (const child of Object.values(value)) deepFreeze(child)
  return Object.freeze(value)
}

function isAscending(records: readonly Row[]): boolean {
  for (let i = 1; i < records.length; i++) {
    if (records[i - 1]!.id >= records[i]!.id) return false
  }
  return true
}
