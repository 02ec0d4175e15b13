/** One API request as the journal records it (`GET /__sandbox/requests`). */
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
  /** The parsed JSON body, with passwords redacted; absent when there was none. */
  requestBody?: unknown
  /** The business code of the envelope; null when there was no envelope (dropped). */
  responseCode: number | null
}

/** The last `capacity` API requests of a sandbox, oldest first. */
export class Journal {
  readonly #entries: JournalEntry[] = []
  #nextId = 1

  constructor(readonly capacity = 1000) {}

  add(entry: Omit<JournalEntry, 'id'>): void {
    this.#entries.push({ id: this.#nextId++, ...entry })
    if (this.#entries.length > this.capacity)
      this.#entries.splice(0, this.#entries.length - this.capacity)
  }

  entries(): readonly JournalEntry[] {
    return this.#entries
  }

  /** Empties the journal; ids start again at 1. */
  clear(): void {
    this.#entries.length = 0
    this.#nextId = 1
  }
}

/** A copy of a JSON value with every `password` field replaced, so secrets never reach the journal. */
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
