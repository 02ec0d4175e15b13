import type { Readable, Writable } from 'node:stream'
import { Transform } from 'node:stream'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/body.js'

/**
 * The longest message line the MCP server reads. An agent's largest honest input (an override
 * with a response, a request body) is within the API's 1 MiB; the SDK's own reader gives up
 * past 10 MiB by closing the session, silently.
 */
export const MAX_LINE_BYTES = 4 * 2 ** 20

/** How deep a message may nest: a tool's input (as deep as a body) inside the JSON-RPC envelope. */
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8

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
  if (jsonDepthExceeds(line, MAX_MESSAGE_DEPTH))
    return { id, code: -32600, message: `message nests deeper than ${MAX_MESSAGE_DEPTH} levels` }
  if (JSONRPCMessageSchema.safeParse(message).success) return null
  return {
    id,
    code: -32600,
    message:
      'Invalid Request: not a JSON-RPC 2.0 message (an object with jsonrpc "2.0" and a method, or a result or error)',
  }
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
