import { successText } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import { pathMatcher } from './overrides.js'

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
  /** The response body as sent (JSON), cut like request bodies; absent when there was none. */
  responseBody?: unknown
  /** The business code of the envelope; null when there was no envelope (dropped). */
  responseCode: number | null
  /** The override that answered (CONTRACT C2), when one did. */
  overrideId?: number
}

/** What is kept per request: the raw parts, formatted only when someone reads the journal. */
export interface JournalRecord {
  at: number
  method: string
  path: string
  /** The raw query string (`?a=1`), parsed only when read. */
  search: string
  durationMs: number
  /** The parsed body (never mutated after parsing); undefined when there was none. */
  body?: unknown
  overrideId?: number | undefined
  /** The path relative to the base path (what filters and overrides match). */
  apiPath?: string | undefined
  /** The answer: its status and code, and its body (or what it was made from, see `ApiResponse.data`). */
  response: ApiResponse
}

/** What `GET /__sandbox/requests` and `sandbox.requests()` filter by (CONTRACT C2). */
export interface JournalFilter {
  method?: string
  /** A concrete path or a route template, relative to the base path. */
  path?: string
  status?: number
}

/** How much a journal keeps (CONTRACT C3: bounds in bytes as well as counts). */
export interface JournalLimits {
  /** Requests kept at most; 0 turns the journal off. */
  size: number
  /** Bytes of one request body kept (redacted JSON); longer ones are cut with a marker; 0 keeps none. */
  bodyBytes: number
  /** Bytes all kept entries may take (estimated); the oldest go first. */
  bytes: number
}

export const defaultJournalLimits: Readonly<JournalLimits> = {
  size: 1000,
  bodyBytes: 16 * 1024,
  bytes: 4 * 1024 * 1024,
}

/**
 * An entry as kept, one shape for all: a request body as (possibly cut) redacted JSON text; a
 * response body that fits `bodyBytes` as sent, or as the data it was made from (rendered and
 * redacted when read: a page of records then costs the journal a few references, not its text),
 * a longer one redacted and cut.
 */
interface Kept {
  id: number
  at: number
  method: string
  path: string
  apiPath: string | undefined
  search: string
  status: number
  durationMs: number
  responseCode: number | null
  overrideId: number | undefined
  bodyText: string | undefined
  /** The full length of a body that was cut. */
  cutFrom: number | undefined
  /** `raw`: `responseText` as sent; `data`: `successText(responseData)`; `cut`: redacted and cut. */
  responseKind: 'none' | 'raw' | 'data' | 'cut'
  responseText: string | undefined
  responseData: unknown
  responseCutFrom: number | undefined
  bytes: number
}

/** A new entry object, every field present (one shape for all). */
function blankEntry(): Kept {
  return {
    id: 0,
    at: 0,
    method: '',
    path: '',
    apiPath: undefined,
    search: '',
    status: 0,
    durationMs: 0,
    responseCode: null,
    overrideId: undefined,
    bodyText: undefined,
    cutFrom: undefined,
    responseKind: 'none',
    responseText: undefined,
    responseData: undefined,
    responseCutFrom: undefined,
    bytes: 0,
  }
}

/** What an entry costs besides its strings (object, numbers, slots), in bytes. */
const ENTRY_OVERHEAD = 200

/**
 * The last API requests of a sandbox, oldest first, within a count and a byte budget: a body
 * is kept as redacted JSON text up to a size, so one huge request cannot hold megabytes. A
 * ring of fixed-shape entries: recording a request is a few stores, formatting waits for a read.
 */
export class Journal {
  /** The ring: `#count` entries, the oldest at `#head`. */
  #items: Kept[] = []
  #head = 0
  #count = 0
  #nextId = 1
  #bytes = 0

  constructor(readonly limits: JournalLimits = defaultJournalLimits) {}

  add(record: JournalRecord): void {
    const { size, bodyBytes, bytes: budget } = this.limits
    if (size === 0) return
    let bodyText: string | undefined
    let cutFrom: number | undefined
    if (record.body !== undefined && bodyBytes > 0) {
      const text = JSON.stringify(record.body, redactSecrets) ?? 'null'
      if (text.length > bodyBytes) {
        bodyText = text.slice(0, bodyBytes)
        cutFrom = text.length
      } else bodyText = text
    }
    let responseKind: Kept['responseKind'] = 'none'
    let responseText: string | undefined
    let responseData: unknown
    let responseCutFrom: number | undefined
    let responseLength = 0
    const answer = record.response
    if (answer.body !== null && bodyBytes > 0) {
      const sent = answer.body
      if (sent.length <= bodyBytes) {
        if ('data' in answer) {
          responseKind = 'data'
          responseData = answer.data
        } else {
          responseKind = 'raw'
          responseText = sent
        }
        responseLength = sent.length
      } else {
        // Redacted before it is cut, so a cut can never split a secret out of the redaction.
        const redacted = redactJsonText(sent)
        responseKind = 'cut'
        responseText = redacted.slice(0, bodyBytes)
        responseLength = responseText.length
        if (redacted.length > bodyBytes) responseCutFrom = redacted.length
      }
    }
    const bytes =
      ENTRY_OVERHEAD +
      2 * (record.path.length + record.search.length + (bodyText?.length ?? 0) + responseLength)
    // A full ring writes over its oldest entry's object: no new object per request once full,
    // and none left behind for the collector (entries never leave the journal unformatted).
    const full = this.#count === size
    const entry: Kept = full ? this.#items[this.#head]! : blankEntry()
    if (full) this.#dropOldest()
    entry.id = this.#nextId++
    entry.at = record.at
    entry.method = record.method
    entry.path = record.path
    entry.apiPath = record.apiPath
    entry.search = record.search
    entry.status = record.response.status
    entry.durationMs = record.durationMs
    entry.responseCode = record.response.code
    entry.overrideId = record.overrideId
    entry.bodyText = bodyText
    entry.cutFrom = cutFrom
    entry.responseKind = responseKind
    entry.responseText = responseText
    entry.responseData = responseData
    entry.responseCutFrom = responseCutFrom
    entry.bytes = bytes
    const slot = (this.#head + this.#count) % size
    if (slot === this.#items.length) this.#items.push(entry)
    else this.#items[slot] = entry
    this.#count++
    this.#bytes += bytes
    while (this.#bytes > budget && this.#count > 1) this.#dropOldest()
  }

  #dropOldest(): void {
    this.#bytes -= this.#items[this.#head]!.bytes
    this.#items[this.#head] = undefined as unknown as Kept
    this.#head = (this.#head + 1) % this.limits.size
    this.#count--
  }

  #at(index: number): Kept {
    return this.#items[(this.#head + index) % this.limits.size]!
  }

  /** How many requests are kept. */
  get size(): number {
    return this.#count
  }

  /** Estimated bytes the kept entries take. */
  get bytes(): number {
    return this.#bytes
  }

  /** The entries matching a filter, oldest first, formatted for reading. */
  matching(filter: JournalFilter): JournalEntry[] {
    const method = filter.method?.toUpperCase()
    const path = filter.path === undefined ? null : pathMatcher(filter.path)
    const entries: JournalEntry[] = []
    for (let index = 0; index < this.#count; index++) {
      const item = this.#at(index)
      if (method !== undefined && item.method !== method) continue
      if (filter.status !== undefined && item.status !== filter.status) continue
      if (path && !path(item.apiPath ?? item.path)) continue
      entries.push(format(item, this.limits.bodyBytes))
    }
    return entries
  }

  /** Entries `from` (0 = oldest) up to `to`, formatted for reading. */
  entries(from = 0, to = this.size): JournalEntry[] {
    const entries: JournalEntry[] = []
    for (let index = Math.max(from, 0); index < Math.min(to, this.#count); index++) {
      entries.push(format(this.#at(index), this.limits.bodyBytes))
    }
    return entries
  }

  /** Empties the journal; ids start again at 1. */
  clear(): void {
    this.#items = []
    this.#head = 0
    this.#count = 0
    this.#nextId = 1
    this.#bytes = 0
  }
}

/** A kept body: parsed when whole, else the cut text with its marker. */
function shown(text: string, cutFrom: number | undefined): unknown {
  if (cutFrom !== undefined) return `${text}…[cut: ${cutFrom} characters in all]`
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function format(record: Kept, bodyBytes: number): JournalEntry {
  let { responseText, responseCutFrom } = record
  if (record.responseKind === 'raw' || record.responseKind === 'data') {
    const sent =
      record.responseKind === 'data' ? successText(record.responseData) : record.responseText!
    const redacted = redactJsonText(sent)
    responseText = redacted.slice(0, bodyBytes)
    if (redacted.length > bodyBytes) responseCutFrom = redacted.length
  }
  return {
    id: record.id,
    at: new Date(record.at).toISOString(),
    method: record.method,
    path: record.path,
    query: queryObject(new URLSearchParams(record.search)),
    status: record.status,
    durationMs: record.durationMs,
    ...(record.bodyText === undefined
      ? {}
      : {
          requestBody: shown(record.bodyText, record.cutFrom),
        }),
    ...(responseText === undefined ? {} : { responseBody: shown(responseText, responseCutFrom) }),
    responseCode: record.responseCode,
    ...(record.overrideId === undefined ? {} : { overrideId: record.overrideId }),
  }
}

/** Fields whose values the journal never shows. */
const SECRET_FIELD = /pass(word)?|secret|token/i

/** String values of secret fields in a JSON text (a session's `token`, …), found without parsing. */
const SECRET_VALUE = /("[^"\\]*(?:pass(?:word)?|secret|token)[^"\\]*"\s*:\s*)"(?:[^"\\]|\\.)*"/gi

/** A JSON text with every password, secret or token field's string value replaced. */
export function redactJsonText(text: string): string {
  return text.replace(SECRET_VALUE, '$1"[redacted]"')
}

/** `JSON.stringify` replacer hiding every password, secret or token field (no copy of the body). */
export function redactSecrets(key: string, value: unknown): unknown {
  return key !== '' && SECRET_FIELD.test(key) ? '[redacted]' : value
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
