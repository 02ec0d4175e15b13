import type { Readable, Writable } from 'node:stream'
import { Transform } from 'node:stream'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { jsonShapeExceeds, MAX_JSON_DEPTH } from '../http/body.js'

/**
 * The longest message line the MCP server reads. An agent's largest honest input (an override
 * with a response, a request body) is within the API's 1 MiB; the SDK's own reader gives up
 * past 10 MiB by closing the session, silently.
 */
export const MAX_LINE_BYTES = 4 * 2 ** 20

/** How deep a message may nest: a tool's input (as deep as a body) inside the JSON-RPC envelope. */
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8

/**
 * How many commas a message may hold outside its strings (its keys and list items, less one a
 * container). A message is parsed twice and checked twice with the SDK's schema, then with the
 * tool's: a line of 200,000 keys held the loop 0.5-1.5 s, whatever its method. An agent's
 * honest input (a body, an override's answer of a thousand records) is well within it.
 */
export const MAX_MESSAGE_COMMAS = 20_000

/** A JSON-RPC error for a message the server will not read: its id when it had one, or null. */
export interface LineRefusal {
  id: string | number | null
  code: number
  message: string
}

/**
 * What is wrong with one message line, if anything, in JSON-RPC's words: not JSON (-32700), or
 * not one JSON-RPC 2.0 message (-32600). The SDK's own reader drops such a line without an
 * answer; a line nested deeper than a tool's input may be could exhaust its stack. Linear.
 */
export function lineProblem(line: string): LineRefusal | null {
  if (line.trim() === '') return null
  // Before it is parsed (parsing a wide one is what takes the time), its id found unparsed.
  const shape = jsonShapeExceeds(line, MAX_MESSAGE_DEPTH, MAX_MESSAGE_COMMAS)
  if (shape)
    return {
      id: topLevelId(line),
      code: -32600,
      message:
        shape === 'depth'
          ? `message nests deeper than ${MAX_MESSAGE_DEPTH} levels`
          : `message holds more than ${MAX_MESSAGE_COMMAS} keys and list items`,
    }
  let message: unknown
  try {
    // V8 parses any depth without recursing; what would recurse is the SDK's check of it.
    message = JSON.parse(line)
  } catch {
    return { id: null, code: -32700, message: 'Parse error: the message is not JSON' }
  }
  const given = (message as { id?: unknown } | null)?.id
  // Its id, so the caller waiting for that answer gets it (with null it would wait for good).
  const id =
    typeof given === 'string' || (typeof given === 'number' && Number.isFinite(given))
      ? given
      : null
  if (JSONRPCMessageSchema.safeParse(message).success) {
    const problem = callProblem(message as { method?: unknown; params?: unknown })
    return problem === null ? null : { id, code: -32602, message: `Invalid params: ${problem}` }
  }
  return {
    id,
    code: -32600,
    message:
      'Invalid Request: not a JSON-RPC 2.0 message (an object with jsonrpc "2.0" and a method, or a result or error)',
  }
}

/**
 * What is wrong with the params of a `tools/call` or a `resources/read`, in the words of C6 (the
 * SDK answered a name, arguments or URI of the wrong type -32603, "internal error", with zod's
 * issues as its message).
 */
function callProblem({ method, params }: { method?: unknown; params?: unknown }): string | null {
  if (method !== 'tools/call' && method !== 'resources/read') return null
  const kind = (value: unknown) =>
    value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value
  const reading = method === 'resources/read'
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return `params: must be an object with ${reading ? "the resource's uri" : "the tool's name and arguments"}, got ${kind(params)}`
  const {
    name,
    arguments: given,
    uri,
  } = params as {
    name?: unknown
    arguments?: unknown
    uri?: unknown
  }
  if (reading)
    return typeof uri === 'string'
      ? null
      : `params.uri: must be a resource's URI (a string; resources/list lists them), got ${kind(uri)}`
  if (typeof name !== 'string')
    return `params.name: must be a tool's name (a string; tools/list lists them), got ${kind(name)}`
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
    return `params.arguments: must be an object of the tool's arguments by name, got ${kind(given)}`
  return null
}

/**
 * The `id` of a JSON-RPC message found without parsing it (a string or a finite number written
 * as a top-level member), or null: so a message refused unread is answered to its caller. Linear.
 */
export function topLevelId(text: string): string | number | null {
  const scanner = new TopLevelId()
  scanner.feed(Buffer.from(text, 'utf8'))
  return scanner.end()
}

/** Bytes of a top-level id's value kept while it is read: more, and it is no id worth telling. */
const MAX_ID_BYTES = 256

/**
 * {@link topLevelId} over a message's bytes as they come, so a message too long to keep (past
 * {@link MAX_LINE_BYTES}, dropped as it streams by) is still answered to its id: the SDK's
 * client waits a minute for an answer with `id: null` before it gives up. The first top-level
 * `id` member decides. Holds a few counters and at most {@link MAX_ID_BYTES}; JSON's
 * structural characters are ASCII, which no byte of a multi-byte UTF-8 character is.
 */
export class TopLevelId {
  #found: string | number | null = null
  #done = false
  #depth = 0
  #inString = false
  #escaped = false
  /** The first bytes of the string being read at depth 1, and how long it is. */
  #key = ''
  #keyLength = 0
  /** After a top-level `"id"`: its colon, then its value. */
  #state: 'none' | 'key' | 'colon' | 'value' = 'none'
  #value: number[] = []

  feed(bytes: Uint8Array): void {
    for (let index = 0; index < bytes.length && !this.#done; index++) this.#byte(bytes[index]!)
  }

  /** The id, once the message's bytes are all fed. */
  end(): string | number | null {
    if (this.#state === 'value' && !this.#done) this.#settle()
    return this.#found
  }

  #byte(byte: number): void {
    if (this.#state === 'value') {
      const quoted = (this.#value.length === 0 ? byte : this.#value[0]) === 34 /* " */
      if (quoted || /[-+.\deE]/.test(String.fromCharCode(byte))) {
        this.#value.push(byte)
        if (this.#value.length > MAX_ID_BYTES) this.#done = true
        else if (quoted && byte === 34 && this.#value.length > 1 && !this.#escaped) this.#settle()
        this.#escaped = quoted && byte === 92 && !this.#escaped
        return
      }
      return this.#settle()
    }
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false
      else if (byte === 92 /* \\ */) {
        this.#escaped = true
        this.#keyLength = Number.POSITIVE_INFINITY
      } else if (byte === 34 /* " */) {
        this.#inString = false
        const isId = this.#depth === 1 && this.#keyLength === 2 && this.#key === 'id'
        this.#state = isId ? 'key' : 'none'
      } else if (this.#depth === 1) {
        if (this.#keyLength < 2) this.#key += String.fromCharCode(byte)
        this.#keyLength++
      }
      return
    }
    const space = byte === 32 || byte === 9 || byte === 10 || byte === 13
    if (this.#state === 'key') {
      if (space) return
      this.#state = byte === 58 /* : */ ? 'colon' : 'none'
      if (this.#state === 'colon') return
    } else if (this.#state === 'colon') {
      if (space) return
      this.#state = 'value'
      return this.#byte(byte)
    }
    if (byte === 123 /* { */ || byte === 91 /* [ */) this.#depth++
    else if (byte === 125 /* } */ || byte === 93 /* ] */) this.#depth--
    else if (byte === 34 /* " */) {
      this.#inString = true
      this.#key = ''
      this.#keyLength = 0
    }
  }

  /** Reads the value kept: the id when it is a string or a finite number. */
  #settle(): void {
    this.#done = true
    try {
      const id: unknown = JSON.parse(Buffer.from(this.#value).toString('utf8'))
      if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))
        this.#found = id
    } catch {
      // Not a string or a number: no id to tell.
    }
  }
}

/**
 * Stdin as the SDK's stdio transport reads it, one message per line: a line past `limit`
 * dropped whole (up to its newline) instead of ending the session, and one that is not a
 * JSON-RPC message ({@link lineProblem}) dropped; `refused` is told, and answers with a
 * JSON-RPC error. Before each message is passed on, `gate` may make it wait (a promise): input
 * is read no faster than answers are taken.
 */
export function lineGuard(
  input: Readable,
  refused: (refusal: LineRefusal) => void,
  limit = MAX_LINE_BYTES,
  gate: () => Promise<void> | null = () => null,
): Readable {
  const tooLong = (bytes: number, id: TopLevelId): LineRefusal => ({
    id: id.end(),
    code: -32600,
    message: `message of ${bytes} bytes and more refused: at most ${limit} bytes per message`,
  })
  // A byte order mark before the first message (some Windows shells write one) is no JSON.
  let first = true
  const pass = async (given: Buffer) => {
    const bom = first && given[0] === 0xef && given[1] === 0xbb && given[2] === 0xbf
    first = false
    const line = bom ? given.subarray(3) : given
    const problem = lineProblem(line.toString('utf8'))
    if (problem) return refused(problem)
    const waiting = gate()
    if (waiting) await waiting
    guard.push(line)
  }
  let pending: Buffer[] = []
  let size = 0
  let dropping = 0
  // A line past the limit: its id, read from its bytes as they go by (kept, then dropped).
  let id = new TopLevelId()
  const overflowing = (piece: Buffer) => {
    for (const kept of pending) id.feed(kept)
    id.feed(piece)
  }
  const guard = new Transform({
    async transform(chunk: Buffer, _encoding, done) {
      let start = 0
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline + 1)
        if (dropping > 0) {
          id.feed(piece)
          refused(tooLong(dropping + piece.length, id))
          dropping = 0
        } else if (size + piece.length > limit) {
          overflowing(piece)
          refused(tooLong(size + piece.length, id))
        } else await pass(Buffer.concat([...pending, piece]))
        pending = []
        size = 0
        id = new TopLevelId()
        start = newline + 1
      }
      const rest = chunk.subarray(start)
      if (dropping > 0) {
        dropping += rest.length
        id.feed(rest)
      } else if (size + rest.length > limit) {
        overflowing(rest)
        dropping = size + rest.length
        pending = []
        size = 0
      } else if (rest.length > 0) {
        pending.push(Buffer.from(rest))
        size += rest.length
      }
      done()
    },
  })
  input.on('error', (error) => guard.destroy(error))
  return input.pipe(guard)
}

/**
 * The requests read and not yet answered, and the bytes of answers not yet taken by the client:
 * past `requests` of the one or {@link Flow.bytes} of the other, the next message
 * waits unread ({@link Flow.gate}). A client slow to read its answers made them pile up in
 * memory until the process ran out of it (344 KB documents asked for faster than read: 622 MB
 * and an abort in 5 s under a 512 MB heap); now it is the client that waits, as over a socket.
 */
export class Flow {
  static readonly bytes = 8 * 2 ** 20
  #open = new Set<string | number>()
  #waiting: Array<() => void> = []
  /** `requests`: as many as may run and wait at once, so that none is refused for load. */
  constructor(
    readonly output: Writable,
    readonly requests: number,
  ) {
    output.on('drain', () => this.#wake())
  }

  /** Null when the next message may be read now, else a promise of when it may. */
  gate(): Promise<void> | null {
    if (this.#open.size < this.requests && this.output.writableLength <= Flow.bytes) return null
    return new Promise<void>((resolve) => this.#waiting.push(resolve)).then(
      () => this.gate() ?? undefined,
    )
  }

  /** A request read (its id), one answered, or one the client cancelled (the SDK answers none). */
  asked(id: string | number): void {
    this.#open.add(id)
  }
  settled(id: string | number): void {
    if (this.#open.delete(id)) this.#wake()
  }

  #wake(): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (const resolve of waiting) resolve()
  }
}

/** Writes the JSON-RPC error for a message that was not read. */
export function refuseLine(output: Writable, { id, code, message }: LineRefusal): void {
  output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`)
}
