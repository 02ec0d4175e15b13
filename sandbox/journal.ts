/** One API request as the journal shows it (`GET /__sandbox/requests`). */
export interface JournalEntry {
  id: number
  /** When the request arrived (ISO 8601 UTC). */
  at: string
  method: string
  path: string
  query: Record<string, string | string[]>
  /** HTTP status answered; 0 when the connection was dropped. */
  status: number
  durationMs: number
  /** The parsed JSON body, with passwords and tokens redacted; absent when there was none. */
  requestBody?: unknown
  /** The business code of the envelope; null when there was no envelope (dropped). */
  responseCode: number | null
}

/** What is kept per request: the raw parts, formatted only when someone reads the journal. */
export interface JournalRecord {
  at: number
  method: string
  path: string
  /** The raw query string (`?a=1`), parsed only when read. */
  search: string
  status: number
  durationMs: number
  /** The parsed body (never mutated after parsing), when there was one. */
  body?: unknown
  responseCode: number | null
}

/**
 * The last `capacity` API requests of a sandbox, oldest first: a ring buffer, so recording a
 * request costs the same when the journal is full.
 */
export class Journal {
  #slots: Array<JournalRecord & { id: number }> = []
  #start = 0
  #nextId = 1

  constructor(readonly capacity = 1000) {}

  add(record: JournalRecord): void {
    const entry = Object.assign(record, { id: this.#nextId++ })
    if (this.#slots.length < this.capacity) {
      this.#slots.push(entry)
      return
    }
    this.#slots[this.#start] = entry
    this.#start = (this.#start + 1) % this.capacity
  }

  /** How many requests are kept. */
  get size(): number {
    return this.#slots.length
  }

  /** Entries `from` (0 = oldest) up to `to`, formatted for reading. */
  entries(from = 0, to = this.#slots.length): JournalEntry[] {
    const entries: JournalEntry[] = []
    for (let index = Math.max(from, 0); index < Math.min(to, this.#slots.length); index++) {
      entries.push(format(this.#slots[(this.#start + index) % this.#slots.length]!))
    }
    return entries
  }

  /** Empties the journal; ids start again at 1. */
  clear(): void {
    this.#slots = []
    this.#start = 0
    this.#nextId = 1
  }
}

function format(record: JournalRecord & { id: number }): JournalEntry {
  return {
    id: record.id,
    at: new Date(record.at).toISOString(),
    method: record.method,
    path: record.path,
    query: queryObject(new URLSearchParams(record.search)),
    status: record.status,
    durationMs: record.durationMs,
    ...('body' in record ? { requestBody: redact(record.body) } : {}),
    responseCode: record.responseCode,
  }
}

/** A copy of a JSON value with every password, secret or token field replaced. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value !== 'object' || value === null) return value
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    const hidden = /pass(word)?|secret|token/i.test(key)
    Object.defineProperty(copy, key, {
      value: hidden ? '[redacted]' : redact(child),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return copy
}

/** The query string as an object; repeated parameters become arrays. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [key, value] of params) {
    const previous = query[key]
    query[key] =
      previous === undefined
        ? value
        : Array.isArray(previous)
          ? [...previous, value]
          : [previous, value]
  }
  return { ...query }
}
