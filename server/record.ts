import { constants } from 'node:fs'
import { access, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { clip } from '../contract/params.js'
import { headerNameProblem, headerValueProblem, SERVER_OWNED_HEADERS } from '../contract/headers.js'
import {
  AUTH_SCHEMES,
  isSecretHeader,
  isSecretParam,
  redactJsonText,
  redactJsonValue,
} from '../contract/secrets.js'
import type { OverrideInput } from '../state/overrides/index.js'
import {
  MAX_CONDITIONS,
  MAX_DEPTH,
  MAX_HEADER_BYTES,
  overrideFootprint,
  parseOverride,
} from '../state/overrides/index.js'
import { jsonFootprint } from '../contract/json-size.js'
import { realTarget, writeAtomic } from './data-file/atomic.js'
import type { IncomingHttpHeaders } from 'node:http'
import { flag } from '../sandbox/option-table.js'

/**
 * `--record <file>` (CONTRACT C4): each proxied exchange becomes an override in the format
 * `--overrides` loads (method, concrete path, the query it had, the answer), so a recorded
 * session replays without the real API. One override per method, path and query: a later
 * answer replaces an earlier one, so the file stays as large as the API surface the client
 * used. The file is rewritten atomically (a temp file fsynced, renamed over it) after each
 * exchange, writes coalescing; secrets are never written.
 */

/** Response headers never recorded: the connection's, the server's, CORS (the sandbox adds its own), secrets. */
const DROPPED_HEADERS: ReadonlySet<string> = new Set([
  ...SERVER_OWNED_HEADERS,
  'date',
  'server',
  'age',
  'via',
  'alt-svc',
  'x-request-id',
  'x-powered-by',
  'set-cookie',
  'strict-transport-security',
  'nel',
  'report-to',
  'vary',
])

/** Whether a response header is worth replaying. */
function keptHeader(name: string, value: string): boolean {
  if (DROPPED_HEADERS.has(name) || name.startsWith('access-control-')) return false
  if (isSecretHeader(name)) return false
  return headerNameProblem(name) === null && headerValueProblem(value) === null
}

/** Why an answer nested deeper than an override may be is not recorded. */
const nestsTooDeep = `its body nests deeper than an override may (${MAX_DEPTH} levels in all)`

/** What came back from the proxy target, decoded: what the recorder records. */
export interface Exchange {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** The body as UTF-8 text; null when it is not (an image). */
  text: string | null
  /** The body parsed, when it says it is JSON and is (and is not {@link deep}); else undefined. */
  json: unknown
  /** Declared JSON, but nested deeper than a request body may be: not parsed. */
  deep: boolean
}

/**
 * Within what `--overrides` loads (`--max-overrides` entries, `--overrides-bytes` of them, as
 * the loader counts them), so a recording always replays, and its memory stays bounded.
 */
export interface RecordLimits {
  count: number
  bytes: number
}

export class Recorder {
  #entries: OverrideInput[]
  /** Each entry's bytes as `--overrides-bytes` counts them, by index. */
  #sizes: number[]
  /**
   * Each entry as the file shows it (pretty JSON, indented as an item of the file's list), made
   * once, by the write after it was recorded (in a task of its own): a rewrite joins them,
   * instead of serializing the whole recording again per exchange.
   */
  #texts: Array<string | undefined>
  #bytes = 0
  #keys = new Map<string, number>()
  #writing: Promise<void> = Promise.resolve()
  /** Exchanges being made into overrides (each in a task of its own). */
  #recording: Promise<unknown> = Promise.resolve()
  #dirty = false
  #full = false

  private constructor(
    readonly file: string,
    entries: OverrideInput[],
    private readonly limits: RecordLimits,
    private readonly warn: (line: string) => void,
  ) {
    this.#entries = entries
    this.#sizes = entries.map((entry) => overrideFootprint(entry))
    this.#texts = entries.map(itemText)
    for (const size of this.#sizes) this.#bytes += size
    for (const [index, entry] of entries.entries()) this.#keys.set(keyOf(entry), index)
  }

  /**
   * Opens `file` for recording: its overrides are kept and added to (a file that is not a
   * JSON array of overrides is refused, naming it); a missing file is created on the first
   * exchange.
   */
  static async open(
    file: string,
    limits: RecordLimits,
    warn: (line: string) => void = (line) => console.error(line),
  ): Promise<Recorder> {
    let text: string | null = null
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT')
        throw new TypeError(`cannot record to ${file}: ${code ?? error}`, { cause: error })
    }
    // Refused at start, not on every exchange: the folder must be there and writable.
    try {
      await access(dirname(file), constants.W_OK)
    } catch (error) {
      throw new TypeError(
        `cannot record to ${file}: its folder ${dirname(file)} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'is not writable'}`,
        { cause: error },
      )
    }
    let entries: OverrideInput[] = []
    if (text !== null && text.trim() !== '') {
      let parsed: unknown
      try {
        parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
      } catch (error) {
        throw new TypeError(
          `cannot record to ${file}: it is not JSON (a recording is a JSON array of overrides)`,
          { cause: error },
        )
      }
      if (!Array.isArray(parsed))
        throw new TypeError(`cannot record to ${file}: it is not a JSON array of overrides`)
      for (const [index, entry] of parsed.entries())
        parseOverride(entry, `cannot record to ${file}: entry [${index}]`)
      entries = parsed as OverrideInput[]
    }
    return new Recorder(file, entries, limits, warn)
  }

  /**
   * Records one exchange (written soon after; `flush()` waits for it): `answer` as relayed (its
   * headers those the client got). `requestHeaders`: what
   * the client sent, whose credentials are blanked wherever the answer repeats them. Made into
   * an override in a task of its own, after the answer is relayed: a big answer's redaction and
   * weighing do not hold the loop in the same task as its relaying.
   */
  add(
    method: string,
    path: string,
    query: URLSearchParams,
    requestHeaders: Readonly<Record<string, string>>,
    answer: Exchange,
  ): void {
    const recorded = new Promise<void>((resolve) =>
      setImmediate(() => {
        try {
          this.#record(method, path, query, requestHeaders, answer)
        } finally {
          resolve()
        }
      }),
    )
    this.#recording = Promise.all([this.#recording, recorded])
  }

  #record(
    method: string,
    path: string,
    query: URLSearchParams,
    requestHeaders: Readonly<Record<string, string>>,
    answer: Exchange,
  ): void {
    // Full (as many overrides as --overrides loads), as said once: further exchanges are not
    // recorded, and not made into overrides to be weighed and dropped (a 100,000-key answer held
    // the loop ~150 ms at every exchange).
    if (this.#full) return
    const made = overrideOf(method, path, query, secretsOf(requestHeaders, query), answer)
    if (typeof made === 'string') {
      this.warn(`shop-sandbox: ${method} ${clip(path, 200)} is not recorded: ${clip(made, 300)}`)
      return
    }
    const { entry, size } = made
    const key = keyOf(entry)
    const index = this.#keys.get(key)
    const bytes = this.#bytes + size - (index === undefined ? 0 : this.#sizes[index]!)
    const count = this.#entries.length + (index === undefined ? 1 : 0)
    if (count > this.limits.count) {
      this.warn(
        `shop-sandbox: ${this.file} holds what ${flag('overrides')} loads at most (${this.limits.count} overrides, ${flag('maxOverrides')}): further exchanges are not recorded`,
      )
      this.#full = true
      return
    }
    // Too large an exchange is left out, alone: the ones after it are recorded while they fit.
    if (bytes > this.limits.bytes) {
      this.warn(
        `shop-sandbox: ${method} ${clip(path, 200)} is not recorded: as an override it takes about ${size} bytes, and ${this.file} would then hold more than ${flag('overrides')} loads (about ${this.limits.bytes} bytes of overrides, ${flag('overridesBytes')}; ${this.#bytes} held)`,
      )
      return
    }
    this.#bytes = bytes
    if (index !== undefined) {
      this.#entries[index] = entry
      this.#sizes[index] = size
      this.#texts[index] = undefined
    } else {
      this.#keys.set(key, this.#entries.length)
      this.#entries.push(entry)
      this.#sizes.push(size)
      this.#texts.push(undefined)
    }
    this.#schedule()
  }

  #schedule(): void {
    if (this.#dirty) return
    this.#dirty = true
    this.#writing = this.#writing.then(async () => {
      this.#dirty = false
      try {
        // Written where a symlink points, so the link stays a link.
        const target = await realTarget(this.file)
        const texts = replayOrder(this.#entries).map(
          (index) => (this.#texts[index] ??= itemText(this.#entries[index]!)),
        )
        await writeAtomic(target, texts.length === 0 ? '[]\n' : `[\n${texts.join(',\n')}\n]\n`)
      } catch (error) {
        this.warn(
          `shop-sandbox: cannot write the recording ${this.file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
        )
      }
    })
  }

  /** Resolves once every recorded exchange is in the file. */
  async flush(): Promise<void> {
    await this.#recording
    await this.#writing
  }
}

/** One override's identity: method, path and query (what it matches), in any parameter order. */
function keyOf(entry: OverrideInput): string {
  const query = Object.entries(entry.query ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify([entry.method ?? '', entry.path, query])
}

/**
 * The entries' indexes in the order a replay needs: an override's query matches as a subset and the
 * newest (the last loaded) wins, so one with fewer parameters (`/search`) must come before one
 * with more (`/search?keyword=a`), or it would answer for it too. Otherwise as recorded.
 */
function replayOrder(entries: readonly OverrideInput[]): number[] {
  return entries
    .map((entry, index) => ({ index, size: Object.keys(entry.query ?? {}).length }))
    .sort((a, b) => a.size - b.size || a.index - b.index)
    .map(({ index }) => index)
}

/** An entry as an item of the file's list: what `JSON.stringify(list, null, 2)` writes for it. */
function itemText(entry: OverrideInput): string {
  return `  ${JSON.stringify(entry, null, 2).replaceAll('\n', '\n  ')}`
}

/**
 * The credentials a request carried (header values, their tokens without the scheme, secret
 * query values): an answer that echoes one (a debug endpoint, a session payload) is recorded
 * with `***` in its place.
 */
/** Credentials of one request looked for in its answer, at most. */
const MAX_SECRETS = 16

function secretsOf(
  headers: Readonly<Record<string, string>>,
  query: URLSearchParams,
): readonly string[] {
  const secrets: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name)) continue
    // Not the scheme words (`Bearer`): an answer's `"token_type":"Bearer"` is no credential.
    secrets.push(
      value,
      ...value.split(/[\s;,=]+/).filter((word) => !AUTH_SCHEMES.has(word.toLowerCase())),
    )
  }
  for (const [name, value] of query) if (isSecretParam(name)) secrets.push(value)
  // Longest first, and never a short fragment (a scheme word, a cookie's name); a bounded
  // number, so blanking them stays linear in the body whatever the request carried.
  return [...new Set(secrets.filter((secret) => secret.length >= 6))]
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_SECRETS)
}

/**
 * An exchange as an override with its bytes as `--overrides-bytes` counts them, or why it cannot
 * be one (a body that is neither JSON nor text, a path or body an override cannot hold). Headers
 * past what an override takes are left out. A JSON body is walked as few times as it can be (an
 * upstream's answer of 300,000 keys held the loop 1.5 s, walked seven times): parsed once by the
 * proxy (again only when a credential had to be blanked in its text), redacted, then weighed and
 * its depth checked in one walk, and written.
 */
function overrideOf(
  method: string,
  path: string,
  query: URLSearchParams,
  secrets: readonly string[],
  answer: Exchange,
): { entry: OverrideInput; size: number } | string {
  const headers: Record<string, string> = {}
  let kept = 0
  let headerBytes = 0
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue
    let text = Array.isArray(value) ? value.join(', ') : value
    for (const secret of secrets) text = text.split(secret).join('***')
    if (!keptHeader(name, text)) continue
    const bytes = name.length + text.length + 4
    if (kept >= MAX_CONDITIONS || headerBytes + bytes > MAX_HEADER_BYTES) continue
    headers[name] = text
    kept++
    headerBytes += bytes
  }
  // No prototype: a parameter named `__proto__` is a condition like any (one an override may not
  // have: the exchange is not recorded), not dropped, which would match more than was asked.
  const matched: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, value] of query) {
    if (isSecretParam(name)) continue
    // An override's query takes one value a name: kept as the last, it matched a query never sent.
    if (name in matched)
      return `its query gives ${clip(name, 100)} more than once (an override's query holds one value a parameter)`
    matched[name] = value
  }
  const response: Record<string, unknown> = { status: answer.status }
  if (Object.keys(headers).length > 0) response.headers = headers
  if (answer.body.byteLength > 0 && answer.status !== 204 && answer.status !== 304) {
    if (answer.text === null) return 'its body is not text (only JSON and text answers replay)'
    let text = answer.text
    const echoed = secrets.filter((secret) => text.includes(secret))
    for (const secret of echoed) text = text.split(secret).join('***')
    if (answer.deep) return nestsTooDeep
    // JSON stays JSON, parsed again after a blanking (which could, in theory, have cut into a
    // bare number: then it is kept as text).
    let json = answer.json
    if (json !== undefined && echoed.length > 0) {
      try {
        json = JSON.parse(text) as unknown
      } catch {
        json = undefined
      }
    }
    // Secret fields (`token`, `password`) never reach the file, as the journal never shows them.
    if (json !== undefined) response.body = redactJsonValue(json)
    else response.text = redactJsonText(text)
  } else if (answer.status !== 204 && answer.status !== 304)
    // No body (a redirect, an empty 200): an empty one replayed, not an envelope made up.
    response.text = ''
  const entry: OverrideInput = {
    method: method as OverrideInput['method'],
    path,
    ...(Object.keys(matched).length > 0 ? { query: matched } : {}),
    response: response as OverrideInput['response'],
  } as OverrideInput
  // The body weighed and its depth checked in one walk; the rest checked as --overrides loads it.
  const { body } = response
  // It sits two levels down (the entry, its response), and an override nests MAX_DEPTH at most.
  const weight = body === undefined ? undefined : jsonFootprint(body, MAX_DEPTH - 2)
  if (weight?.tooDeep) return nestsTooDeep
  const checked = body === undefined ? entry : { ...entry, response: { ...response, body: null } }
  try {
    parseOverride(checked)
  } catch (error) {
    return (error as Error).message
  }
  return { entry, size: overrideFootprint(checked) + (weight?.bytes ?? 0) }
}
