import { successText } from '../contract/envelope.js'
import {
  AUTH_SCHEMES,
  CREDENTIAL_HEADERS,
  isSecretParam,
  isSecretHeader,
  maybeSecret,
  REDACTED,
  redactJsonText,
} from '../contract/secrets.js'
import type { ApiResponse } from '../contract/exchange.js'
import type { NearMiss } from './overrides/index.js'
import type { JournalLimits } from './limits.js'
import { pathMatcher } from './overrides/index.js'

/** One API request as the journal shows it (`GET /__sandbox/requests`). */
export interface JournalEntry {
  id: number
  /** When the request arrived (ISO 8601 UTC). */
  at: string
  method: string
  path: string
  query: Record<string, string | string[]>
  /** HTTP status answered; 0 when the connection was dropped (an override's 1xx: its status). */
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
  /**
   * The request's headers (lower-case names); `Authorization` and `Cookie` values redacted to
   * their scheme (`Bearer ***`).
   */
  requestHeaders: Record<string, string>
  /**
   * The answer's headers as the sandbox made it (lower-case names; `Set-Cookie` redacted),
   * without what a transport adds to frame it (`Content-Length`, CORS, `Vary`).
   */
  responseHeaders: Record<string, string>
  /**
   * On a path the API lacks that no override matched: the override it came closest to and the
   * first condition it failed (CONTRACT C2).
   */
  nearMiss?: NearMiss
  /** Answered by the proxy target (`--proxy`) or passed through to the network (CONTRACT C4). */
  proxied?: true
  /** The scenario the sandbox was in when it answered (CONTRACT C5). */
  scenario: string
}

/** Request or response headers as kept: lower-case names to values (a list joined by the transport). */
export type HeaderRecord = Readonly<Record<string, string | number | readonly string[] | undefined>>

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
  /** The JSON text `body` was parsed from, when there was one: kept as sent when it holds no secret. */
  bodyText?: string | undefined
  overrideId?: number | undefined
  nearMiss?: NearMiss | undefined
  proxied?: boolean | undefined
  /** The request's headers (kept as given; redacted when read). */
  requestHeaders?: HeaderRecord | undefined
  /** The path relative to the base path (what filters and overrides match). */
  apiPath?: string | undefined
  /** The answer: its status and code, and its body (or what it was made from, see `ApiResponse.data`). */
  response: ApiResponse
  /** The scenario the sandbox was in (CONTRACT C5). */
  scenario?: string | undefined
}

/** What `GET /__sandbox/requests` and `sandbox.requests()` filter by (CONTRACT C2). */
export interface JournalFilter {
  method?: string
  /** A concrete path or a route template, relative to the base path (see {@link filterUnder}). */
  path?: string
  status?: number
  /** `asc` (default): oldest first; `desc`: newest first. */
  order?: 'asc' | 'desc'
}

/**
 * A filter as the journal reads it: its `path` relative to the base path (C2), as overrides
 * take paths; one written as entries show paths, base path and all (`/api/users/3`, copied from
 * the journal), is read without it, so it finds what it was copied from.
 */
export function filterUnder(filter: JournalFilter, basePath: string): JournalFilter {
  const { path } = filter
  if (basePath === '' || path === undefined) return filter
  if (path === basePath) return { ...filter, path: '/' }
  return path.startsWith(`${basePath}/`) ? { ...filter, path: path.slice(basePath.length) } : filter
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
  nearMiss: NearMiss | undefined
  proxied: boolean
  requestHeaders: HeaderRecord | undefined
  responseHeaders: HeaderRecord | undefined
  bodyText: string | undefined
  /** The full length of a body that was cut. */
  cutFrom: number | undefined
  /** `raw`: `responseText` as sent; `data`: `successText(responseData)`; `cut`: redacted and cut. */
  responseKind: 'none' | 'raw' | 'data' | 'cut'
  responseText: string | undefined
  responseData: unknown
  responseCutFrom: number | undefined
  scenario: string
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
    nearMiss: undefined,
    proxied: false,
    requestHeaders: undefined,
    responseHeaders: undefined,
    bodyText: undefined,
    cutFrom: undefined,
    responseKind: 'none',
    responseText: undefined,
    responseData: undefined,
    responseCutFrom: undefined,
    scenario: '',
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

  constructor(readonly limits: JournalLimits) {}

  add(record: JournalRecord): void {
    const { size, bodyBytes, bytes: budget } = this.limits
    if (size === 0) return
    let bodyText: string | undefined
    let cutFrom: number | undefined
    if (record.body !== undefined && bodyBytes > 0) {
      // The text as sent, its secrets' values replaced (one linear scan, and none at all when
      // no field in it can be a secret: no such word, no escape that could spell one).
      const sent = record.bodyText ?? jsonText(record.body)
      const text = sent === undefined ? 'null' : maybeSecret(sent) ? redactJsonText(sent) : sent
      if (text.length > bodyBytes) {
        bodyText = cut(text, bodyBytes)
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
        responseText = cut(redacted, bodyBytes)
        responseLength = responseText.length
        if (redacted.length > bodyBytes) responseCutFrom = redacted.length
      }
    }
    const bytes =
      ENTRY_OVERHEAD +
      2 * (record.path.length + record.search.length + (bodyText?.length ?? 0) + responseLength) +
      headerBytes(record.requestHeaders) +
      headerBytes(answer.headers)
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
    entry.nearMiss = record.nearMiss
    entry.proxied = record.proxied === true
    entry.requestHeaders = record.requestHeaders
    // A copy: a transport adds its framing (length, CORS) to the answer's own object after this.
    entry.responseHeaders = answer.setCookies
      ? { ...answer.headers, 'set-cookie': answer.setCookies }
      : { ...answer.headers }
    entry.bodyText = bodyText
    entry.cutFrom = cutFrom
    entry.responseKind = responseKind
    entry.responseText = responseText
    entry.responseData = responseData
    entry.responseCutFrom = responseCutFrom
    entry.scenario = record.scenario ?? 'default'
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

  /**
   * The entries matching a filter (oldest first, or newest first with `order: 'desc'`), from
   * the `from`th match up to the `to`th, formatted for reading; `total` counts every match.
   */
  page(
    filter: JournalFilter,
    from = 0,
    to = Number.POSITIVE_INFINITY,
  ): { list: JournalEntry[]; total: number } {
    const method = filter.method?.toUpperCase()
    const path = filter.path === undefined ? null : pathMatcher(filter.path)
    const unfiltered = method === undefined && path === null && filter.status === undefined
    const descending = filter.order === 'desc'
    const list: JournalEntry[] = []
    let total = 0
    for (let step = 0; step < this.#count; step++) {
      const item = this.#at(descending ? this.#count - 1 - step : step)
      if (unfiltered) {
        // Without a filter the matches are the entries themselves: only the page is formatted.
        total = this.#count
        if (step < from) continue
        if (step >= to) break
      } else {
        if (method !== undefined && item.method !== method) continue
        if (filter.status !== undefined && item.status !== filter.status) continue
        if (path && !path(item.apiPath ?? item.path)) continue
        total++
        if (total <= from || total > to) continue
      }
      list.push(format(item, this.limits.bodyBytes))
    }
    return { list, total }
  }

  /** The entries matching a filter, oldest first (newest first with `order: 'desc'`). */
  matching(filter: JournalFilter): JournalEntry[] {
    return this.page(filter).list
  }

  /** Entries `from` (0 = oldest) up to `to`, formatted for reading. */
  entries(from = 0, to = this.size): JournalEntry[] {
    return this.page({}, from, to).list
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

/**
 * The first `length` characters of `text` as a string of their own. V8 keeps a slice as a view
 * into the string it was cut from: a 16 KB cut of a 1 MB body would keep the whole megabyte
 * alive for as long as the journal keeps the entry, while its memory estimate counts 16 KB (a
 * few named sandboxes' journals then exhausted the heap). A round trip through JSON copies it.
 */
function cut(text: string, length: number): string {
  return JSON.parse(JSON.stringify(text.slice(0, length))) as string
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
    ...(record.nearMiss === undefined ? {} : { nearMiss: { ...record.nearMiss } }),
    ...(record.proxied ? { proxied: true as const } : {}),
    scenario: record.scenario,
    requestHeaders: redactedHeaders(record.requestHeaders),
    responseHeaders: redactedHeaders(record.responseHeaders),
  }
}

/** Headers as the journal shows them: lower-case names, lists joined, secrets redacted. */
export function redactedHeaders(headers: HeaderRecord | undefined): Record<string, string> {
  const shown: Record<string, string> = {}
  if (!headers) return shown
  // Sorted by name: the same on every transport (Fetch's Headers are sorted, Node's are not).
  const entries = Object.entries(headers).sort(([a], [b]) =>
    a.toLowerCase() < b.toLowerCase() ? -1 : 1,
  )
  for (const [rawName, rawValue] of entries) {
    if (rawValue === undefined) continue
    const name = rawName.toLowerCase()
    const value = Array.isArray(rawValue) ? rawValue.join(', ') : String(rawValue)
    if (CREDENTIAL_HEADERS.has(name)) {
      const scheme = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}) /.exec(value)?.[1]
      shown[name] = scheme && AUTH_SCHEMES.has(scheme.toLowerCase()) ? `${scheme} ***` : '***'
    } else shown[name] = isSecretHeader(name) ? '***' : value
  }
  return shown
}

/**
 * What a header costs besides its text: its slot in the headers object (a request's is kept as
 * the transport made it, one property per header). Measured (Node 20): 1,900 headers of one to
 * three characters took ~100 KB of heap per request, ~53 bytes a header, where the text alone
 * counted ~6; counting the text alone, a server under a 512 MB heap kept such requests in its
 * sandboxes' journals until it ran out of memory. `test/state/journal.test.ts` holds the
 * estimate to what is held.
 */
const HEADER_SLOT_BYTES = 64

/** About how many bytes a set of headers takes: its text (two bytes a character) and slots. */
function headerBytes(headers: HeaderRecord | undefined): number {
  let length = 0
  let count = 0
  if (!headers) return length
  for (const name in headers) {
    const value = headers[name]
    count++
    length +=
      name.length +
      (typeof value === 'string'
        ? value.length
        : Array.isArray(value)
          ? value.reduce((sum: number, line: string) => sum + line.length + 4, 0)
          : 16)
  }
  return 2 * length + HEADER_SLOT_BYTES * count
}

/** A value's JSON text, or undefined when it has none (or nests too deep to write). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/** The query string as an object; repeated parameters become arrays, secret ones redacted (`?token=`). */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [key, sent] of params) {
    const value = isSecretParam(key) ? REDACTED : sent
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
