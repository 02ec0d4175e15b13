/**
 * Which records of a list (given in id order) a walk of a sort index keeps: a byte per id when
 * the ids are dense enough, else a Set (ids may reach 2^31 − 1: a byte per id up to one such
 * would be gigabytes). Made once per list and kept as long as it is: a filter's matches a table
 * keeps between writes are marked once, not on every page asked of them (at 100,000 users,
 * marking took half of a repeated filtered and sorted page's time).
 */
export interface IdMarks {
  has(id: number): boolean
}

/** Ids a byte array may span per record it marks: sparser, a Set takes less. */
const SPAN_PER_RECORD = 16

/** What a Set entry of a small integer costs (V8's ordered hash set, rounded up). */
const SET_ENTRY_BYTES = 24

const dense = (records: readonly { id: number }[]) =>
  (records.at(-1)?.id ?? 0) < SPAN_PER_RECORD * records.length

/** The marks of `records`, made on first use. */
export function idMarks(records: readonly { id: number }[]): IdMarks {
  let marks = marked.get(records)
  if (marks) return marks
  if (dense(records)) {
    const bytes = new Uint8Array((records.at(-1)?.id ?? 0) + 1)
    for (const record of records) bytes[record.id] = 1
    marks = { has: (id) => bytes[id] === 1 }
  } else marks = new Set(records.map((record) => record.id))
  marked.set(records, marks)
  return marks
}

/** What {@link idMarks} of `records` takes, made or not (counted with a table's cached matches). */
export function idMarksBytes(records: readonly { id: number }[]): number {
  return dense(records) ? (records.at(-1)?.id ?? 0) + 1 : SET_ENTRY_BYTES * records.length
}

const marked = new WeakMap<readonly { id: number }[], IdMarks>()
