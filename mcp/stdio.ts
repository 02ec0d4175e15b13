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
 * What is wrong with a `tools/call`'s params, in the words of C6 (the SDK answered a name or
 * arguments of the wrong type -32603, "internal error", with zod's issues as its message).
 */
function callProblem({ method, params }: { method?: unknown; params?: unknown }): string | null {
  if (method !== 'tools/call') return null
  const kind = (value: unknown) =>
    value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return `params: must be an object with the tool's name and arguments, got ${kind(params)}`
  const { name, arguments: given } = params as { name?: unknown; arguments?: unknown }
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
  let depth = 0
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (char === 123 /* { */ || char === 91 /* [ */) depth++
    else if (char === 125 /* } */ || char === 93 /* ] */) depth--
    else if (char === 34 /* " */) {
      const start = index
      index = stringEnd(text, index)
      if (depth !== 1 || index - start !== 3 || !text.startsWith('"id"', start)) continue
      let at = spacesEnd(text, index + 1)
      if (text[at] !== ':') continue
      at = spacesEnd(text, at + 1)
      let end = at
      if (text[at] === '"') end = stringEnd(text, at) + 1
      else while (end < text.length && /[-+.\deE]/.test(text[end]!)) end++
      try {
        const id: unknown = JSON.parse(text.slice(at, end))
        return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
      } catch {
        return null
      }
    }
  }
  return null
}

/** Where the JSON whitespace from `start` ends. */
function spacesEnd(text: string, start: number): number {
  let index = start
  while (index < text.length && ' \t\r\n'.includes(text[index]!)) index++
  return index
}

/** Where the JSON string opened at `start` closes (or the text's end). */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (char === 92 /* \\ */) index++
    else if (char === 34 /* " */) return index
  }
  return text.length
}

/**
 * Stdin as the SDK's stdio transport reads it, one message per line: a line past `limit`
 * dropped whole (up to its newline) instead of ending the session, and one that is not a
 * JSON-RPC message ({@link lineProblem}) dropped; `refused` is told, and answers with a
 * JSON-RPC error.
 */
export function lineGuard(
  input: Readable,
  refused: (refusal: LineRefusal) => void,
  limit = MAX_LINE_BYTES,
): Readable {
  const tooLong = (bytes: number): LineRefusal => ({
    id: null,
    code: -32600,
    message: `message of ${bytes} bytes and more refused: at most ${limit} bytes per message`,
  })
  const pass = (line: Buffer) => {
    const problem = lineProblem(line.toString('utf8'))
    if (problem) refused(problem)
    else guard.push(line)
  }
  let pending: Buffer[] = []
  let size = 0
  let dropping = 0
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline + 1)
        if (dropping > 0) {
          refused(tooLong(dropping + piece.length))
          dropping = 0
        } else if (size + piece.length > limit) {
          refused(tooLong(size + piece.length))
        } else pass(Buffer.concat([...pending, piece]))
        pending = []
        size = 0
        start = newline + 1
      }
      const rest = chunk.subarray(start)
      if (dropping > 0) dropping += rest.length
      else if (size + rest.length > limit) {
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

/** Writes the JSON-RPC error for a message that was not read. */
export function refuseLine(output: Writable, { id, code, message }: LineRefusal): void {
  output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`)
}
