import type { Readable, Writable } from 'node:stream'
import { Transform } from 'node:stream'

/**
 * The longest message line the MCP server reads. An agent's largest honest input (an override
 * with a response, a request body) is within the API's 1 MiB; the SDK's own reader gives up
 * past 10 MiB by closing the session, silently.
 */
export const MAX_LINE_BYTES = 4 * 2 ** 20

/**
 * Stdin as the SDK's stdio transport reads it, one message per line, a line past `limit`
 * dropped whole (up to its newline) instead of ending the session: `refused` is told, and
 * answers with a JSON-RPC error (it cannot name the request: it was not read).
 */
export function lineGuard(
  input: Readable,
  refused: (bytes: number) => void,
  limit = MAX_LINE_BYTES,
): Readable {
  let pending: Buffer[] = []
  let size = 0
  let dropping = 0
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline + 1)
        if (dropping > 0) {
          refused(dropping + piece.length)
          dropping = 0
        } else if (size + piece.length > limit) {
          refused(size + piece.length)
        } else this.push(Buffer.concat([...pending, piece]))
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

/** Writes a JSON-RPC error for a message that was not read (id null, as JSON-RPC says). */
export function refuseLine(output: Writable, bytes: number, limit = MAX_LINE_BYTES): void {
  output.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `message of ${bytes} bytes and more refused: at most ${limit} bytes per message`,
      },
    })}\n`,
  )
}
