import { AnswerError } from '../contract/answer-error.js'
import { MAX_ID } from '../contract/fields.js'

/*
 * What a table stores and refuses: its records, the indexes it files them under, the changes
 * it reports, and the errors of a write it refuses (db/table.ts keeps them).
 */

/** A record kept in a table: immutable once stored, identified by its id. */
export interface Row {
  readonly id: number
}

/**
 * A unique secondary index: one key per record, at most one record per key. A record whose key
 * is undefined (the field is empty) is not filed, and collides with no one. Keys compare by
 * type too: the number 1 and the text '1' are different keys.
 */
export interface UniqueIndex<T> {
  key(record: T): UniqueKey | undefined
}

/** What a unique index files records under. */
export type UniqueKey = string | number

/** A grouping index: each record files under one key (e.g. an order under its owner). */
export interface GroupIndex<T> {
  key(record: T): number
}

/**
 * One change to a table, as an observer hears it: a record put or removed (`before` and `after`
 * are the record before and after, undefined when there was none), or the whole table loaded
 * (`load`: what it held before). Enough to write the change down and to undo it.
 */
export type TableChange<T extends Row = Row> =
  | { kind: 'record'; id: number; before: T | undefined; after: T | undefined }
  | { kind: 'load'; before: readonly T[]; beforeNextId: number }

export interface TableOptions<T extends Row, U extends string, G extends string> {
  /** The collection's name, for messages (e.g. `users`). */
  name?: string
  unique?: Record<U, UniqueIndex<T>>
  groups?: Record<G, GroupIndex<T>>
}

/** Freezes a JSON-like value and everything in it; frozen values are taken as already deep-frozen. */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  // A for-in over a plain object's own keys: no array of its values made per record.
  for (const key in value) if (Object.hasOwn(value, key)) deepFreeze(value[key])
  return Object.freeze(value)
}

/**
 * A write refused because another record already holds one of its unique keys: nothing was
 * changed. The data service answers it 409 with the resource's code.
 */
export class UniqueConflict extends AnswerError {
  constructor(
    readonly table: string,
    readonly index: string,
    readonly key: UniqueKey,
    readonly holder: number,
    /** The written record's value of the field, as given (the key may be folded). */
    readonly value: unknown,
  ) {
    super(`Unique index "${index}" already holds "${String(key)}" (record ${holder})`)
  }
}

/** A table whose id sequence reached {@link MAX_ID}: no record can be created until it is reset. */
export class IdsExhausted extends RangeError {
  constructor(readonly table: string) {
    super(`${table}: every id up to ${MAX_ID} is used`)
  }
}
