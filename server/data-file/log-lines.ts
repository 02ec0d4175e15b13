import type { Snapshot, StoreChange } from '../../db/store.js'
import type { Row } from '../../db/table.js'

/**
 * The data file's append-only log (CONTRACT C3, issue 30): one JSON line per flush, written and
 * fsynced before the writes in it are acknowledged, folded into the data file when it is
 * compacted. A line is either the records a flush changed, `{"c":[[table, id, record|null], …],
 * "n":{table: nextId, …}}` (null: deleted), or a whole document, `{"s":{…}}` (a restore). Every
 * line sets state rather than changing it, so replaying lines the data file already holds
 * changes nothing: a crash between compacting and emptying the log loses nothing and repeats
 * nothing.
 */

type RecordLine = {
  c: Array<[table: string, id: number, record: Row | null]>
  n: Record<string, number>
}
type SnapshotLine = { s: Snapshot }

/** The log line of a flush's changes (records and id sequences), or of a whole document. */
export function logLine(
  changes: readonly StoreChange[],
  nextIds: Readonly<Record<string, number>>,
  snapshot: () => Snapshot,
): string {
  if (changes.some(({ change }) => change.kind === 'load'))
    return `${JSON.stringify({ s: snapshot() } satisfies SnapshotLine)}\n`
  // The last change of each record wins: a record changed twice in one flush is written once.
  const latest = new Map<string, [string, number, Row | null]>()
  for (const { table, change } of changes) {
    if (change.kind !== 'record') continue
    const key = `${table}\u0000${change.id}`
    latest.delete(key)
    latest.set(key, [table, change.id, change.after ?? null])
  }
  return `${JSON.stringify({ c: [...latest.values()], n: nextIds } satisfies RecordLine)}\n`
}

/** What replaying a log gave: the document with every complete line applied. */
export interface Replayed {
  document: Snapshot
  /** Complete lines applied. */
  lines: number
  /** Bytes of a last line cut off by a crash mid-write (ignored), 0 when none. */
  tornBytes: number
}

/**
 * Applies a log's lines to a document, in order. A last line without its newline was cut off
 * by a crash while it was written: it was never acknowledged, so it is dropped. A complete
 * line that is not valid is a damaged log: the problem names it.
 */
export function replayLog(
  base: Snapshot,
  text: string,
  names: readonly string[],
): Replayed | { problem: string } {
  const tables = new Map<string, Map<number, Row>>()
  const nextIds: Record<string, number> = { ...base.nextIds }
  let whole: Snapshot = base
  const tableOf = (name: string) => {
    let table = tables.get(name)
    if (!table) {
      table = new Map((whole[name] ?? []).map((record) => [record.id, record] as [number, Row]))
      tables.set(name, table)
    }
    return table
  }
  const end = text.lastIndexOf('\n') + 1
  const lines = text.slice(0, end).split('\n').slice(0, -1)
  for (const [index, line] of lines.entries()) {
    let parsed: Partial<RecordLine & SnapshotLine>
    try {
      parsed = JSON.parse(line) as Partial<RecordLine & SnapshotLine>
    } catch {
      return { problem: `line ${index + 1} is not valid JSON` }
    }
    if (parsed.s && typeof parsed.s === 'object') {
      whole = parsed.s
      tables.clear()
      // A restore sets the sequences as it gave them (never below its highest id, when loaded).
      for (const name of names) nextIds[name] = parsed.s.nextIds?.[name] ?? 1
      continue
    }
    if (!Array.isArray(parsed.c)) return { problem: `line ${index + 1} is not a log entry` }
    for (const entry of parsed.c) {
      const [name, id, record] = entry as [unknown, unknown, unknown]
      if (typeof name !== 'string' || !names.includes(name) || typeof id !== 'number')
        return { problem: `line ${index + 1} names no record of this API` }
      if (record === null) tableOf(name).delete(id)
      else tableOf(name).set(id, record as Row)
    }
    for (const [name, next] of Object.entries(parsed.n ?? {}))
      if (names.includes(name) && typeof next === 'number')
        nextIds[name] = Math.max(nextIds[name] ?? 1, next)
  }
  const document: Record<string, Row[]> = {}
  for (const name of names) {
    const table = tables.get(name)
    const records = table
      ? [...table.values()].sort((a, b) => a.id - b.id)
      : [...((whole[name] ?? []) as Row[])]
    document[name] = records
    // Never below the highest id, whatever the lines said.
    nextIds[name] = Math.max(nextIds[name] ?? 1, (records.at(-1)?.id ?? 0) + 1)
  }
  return {
    document: { ...document, nextIds } as Snapshot,
    lines: lines.length,
    tornBytes: text.length - end,
  }
}
