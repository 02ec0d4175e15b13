import { constants } from 'node:fs'
import { access, open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { headerNameProblem, headerValueProblem, SERVER_OWNED_HEADERS } from '../contract/headers.js'
import type { OverrideInput } from '../state/overrides.js'
import { parseOverride } from '../state/overrides.js'
import { syncFolder } from './persistence.js'
import type { Exchange } from './proxy.js'

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
/** Names that carry credentials, in headers and query parameters. */
const SECRET =
  /auth|token|secret|password|passwd|session|cookie|csrf|xsrf|signature|api[-_]?key|^key$/i

/** Whether a response header is worth replaying. */
function keptHeader(name: string, value: string): boolean {
  if (DROPPED_HEADERS.has(name) || name.startsWith('access-control-')) return false
  if (name !== 'www-authenticate' && SECRET.test(name)) return false
  return headerNameProblem(name) === null && headerValueProblem(value) === null
}

export class Recorder {
  #entries: OverrideInput[]
  #keys = new Map<string, number>()
  #writing: Promise<void> = Promise.resolve()
  #dirty = false
  #full = false

  private constructor(
    readonly file: string,
    entries: OverrideInput[],
    private readonly maxEntries: number,
    private readonly warn: (line: string) => void,
  ) {
    this.#entries = entries
    for (const [index, entry] of entries.entries()) this.#keys.set(keyOf(entry), index)
  }

  /**
   * Opens `file` for recording: its overrides are kept and added to (a file that is not a
   * JSON array of overrides is refused, naming it); a missing file is created on the first
   * exchange.
   */
  static async open(
    file: string,
    maxEntries: number,
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
    return new Recorder(file, entries, maxEntries, warn)
  }

  /**
   * Records one exchange (written soon after; `flush()` waits for it). `requestHeaders`: what
   * the client sent, whose credentials are blanked wherever the answer repeats them.
   */
  add(
    method: string,
    path: string,
    query: URLSearchParams,
    requestHeaders: Readonly<Record<string, string>>,
    answer: Exchange,
  ): void {
    const entry = overrideOf(method, path, query, secretsOf(requestHeaders, query), answer)
    if (!entry) return
    const key = keyOf(entry)
    const index = this.#keys.get(key)
    if (index !== undefined) this.#entries[index] = entry
    else if (this.#entries.length >= this.maxEntries) {
      if (!this.#full)
        this.warn(
          `shop-sandbox: ${this.file} holds ${this.maxEntries} recorded overrides (--max-overrides, what --overrides loads): further exchanges are not recorded`,
        )
      this.#full = true
      return
    } else {
      this.#keys.set(key, this.#entries.length)
      this.#entries.push(entry)
    }
    this.#schedule()
  }

  #schedule(): void {
    if (this.#dirty) return
    this.#dirty = true
    this.#writing = this.#writing.then(async () => {
      this.#dirty = false
      try {
        await writeAtomic(this.file, `${JSON.stringify(this.#entries, null, 2)}\n`)
      } catch (error) {
        this.warn(
          `shop-sandbox: cannot write the recording ${this.file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
        )
      }
    })
  }

  /** Resolves once every recorded exchange is in the file. */
  flush(): Promise<void> {
    return this.#writing
  }
}

/** One override's identity: method, path and query (what it matches). */
function keyOf(entry: OverrideInput): string {
  return JSON.stringify([entry.method ?? '', entry.path, entry.query ?? {}])
}

/**
 * The credentials a request carried (header values, their tokens without the scheme, secret
 * query values): an answer that echoes one (a debug endpoint, a session payload) is recorded
 * with `***` in its place.
 */
function secretsOf(
  headers: Readonly<Record<string, string>>,
  query: URLSearchParams,
): readonly string[] {
  const secrets: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'www-authenticate' || !SECRET.test(name)) continue
    secrets.push(value, ...value.split(/[\s;,=]+/))
  }
  for (const [name, value] of query) if (SECRET.test(name)) secrets.push(value)
  // Longest first, and never a short fragment (a scheme word, a cookie's name).
  return [...new Set(secrets.filter((secret) => secret.length >= 6))].sort(
    (a, b) => b.length - a.length,
  )
}

/** An exchange as an override; null when its body cannot be written as JSON or text. */
function overrideOf(
  method: string,
  path: string,
  query: URLSearchParams,
  secrets: readonly string[],
  answer: Exchange,
): OverrideInput | null {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue
    let text = Array.isArray(value) ? value.join(', ') : value
    for (const secret of secrets) text = text.split(secret).join('***')
    if (keptHeader(name, text)) headers[name] = text
  }
  const matched: Record<string, string> = {}
  for (const [name, value] of query) if (!SECRET.test(name)) matched[name] = value
  const response: Record<string, unknown> = { status: answer.status }
  if (Object.keys(headers).length > 0) response.headers = headers
  if (answer.body.byteLength > 0 && answer.status !== 204 && answer.status !== 304) {
    if (answer.text === null) return null
    let text = answer.text
    for (const secret of secrets) text = text.split(secret).join('***')
    // JSON stays JSON, parsed again after the blanking (which could, in theory, have cut into
    // a bare number: then it is kept as text).
    let json: unknown
    try {
      json = answer.json === undefined ? undefined : (JSON.parse(text) as unknown)
    } catch {
      json = undefined
    }
    if (json !== undefined) response.body = json
    else response.text = text
  }
  const entry: OverrideInput = {
    method: method as OverrideInput['method'],
    path,
    ...(Object.keys(matched).length > 0 ? { query: matched } : {}),
    response: response as OverrideInput['response'],
  } as OverrideInput
  try {
    parseOverride(entry)
  } catch {
    return null
  }
  return entry
}

/** Writes a file whole or not at all: a temp file beside it, fsynced, renamed over it. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`)
  try {
    const handle = await open(temp, 'w', 0o644)
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined)
    throw error
  }
  await syncFolder(dirname(file))
}
