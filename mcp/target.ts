import { heapStatistics } from '../db/heap.js'
import { trimSlashes } from '../contract/params.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { ToolError } from './errors.js'

/**
 * An answer as the MCP tools hand it on: the exact status and headers (`set-cookie`, when sent
 * more than once, a list: each cookie as its own header, as they came), the body's text.
 */
export interface Answer {
  status: number
  headers: Record<string, string | string[]>
  text: string
}

/**
 * What the MCP server's tools act on: a sandbox, reached through its API and its control API,
 * the same way whether it runs in the MCP server's own process or is a running server
 * (`--url`), so an agent sees what the developer's app and browser did.
 */
export interface Target {
  /** Sends a request; `path` is from the origin (`/__sandbox/db`, `/api/users`). */
  send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer>
  /** Where the API's resources live (`''` or `/api`): call_api's paths are under it. */
  readonly basePath: string
  /** Where the target is, for the tools' texts. */
  readonly where: string
}

/**
 * The most of an answer's body a tool reads (a sandbox's whole data set as one document is
 * the largest answer it asks for): a sixteenth of the heap limit, at least 32 MB. A server that
 * sends more gets an error result, not a process out of memory.
 */
export const MAX_ANSWER_BYTES = Math.max(32 * 2 ** 20, Math.floor(heapStatistics()!.limit / 16))

/** How long a request may take: longer than the longest delay a sandbox can be told (60 s). */
const TIMEOUT_MS = 90_000

/** An answer read up to {@link MAX_ANSWER_BYTES}, or a {@link ToolError} saying it is bigger. */
async function asAnswer(response: Response, limit = MAX_ANSWER_BYTES): Promise<Answer> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > limit) {
    await response.body?.cancel()
    throw tooBig(declared, limit)
  }
  const chunks: Uint8Array[] = []
  let size = 0
  if (response.body)
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > limit) {
        await response.body.cancel().catch(() => {})
        throw tooBig(size, limit)
      }
      chunks.push(chunk)
    }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  const headers: Answer['headers'] = Object.fromEntries(response.headers)
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 1) headers['set-cookie'] = cookies
  return { status: response.status, headers, text: new TextDecoder().decode(bytes) }
}

const tooBig = (bytes: number, limit: number) =>
  new ToolError(
    `the answer is larger than ${Math.round(limit / 2 ** 20)} MB (${bytes} bytes and more): ask for less (one resource, a page, fields)`,
  )

/** A sandbox in this process: answered by its pipeline, no network. */
export function inProcess(sandbox: Sandbox): Target {
  return {
    basePath: sandbox.options.basePath,
    where: 'a sandbox in the MCP server’s own process',
    async send(method, path, headers, body) {
      const response = await sandbox.fetch(`http://sandbox.local${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      })
      // A dropped request (a drop override, a 1xx, dropRate) has no answer: status 0.
      return asAnswer(response)
    },
  }
}

/** A running sandbox server (`shop-sandbox mcp --url http://127.0.0.1:4010`). */
export function remote(url: string, timeoutMs = TIMEOUT_MS): Target {
  const parsed = new URL(url)
  const basePath = trimSlashes(parsed.pathname)
  return {
    basePath,
    where: `the sandbox server at ${parsed.origin}${basePath}`,
    async send(method, path, headers, body) {
      let response: Response
      try {
        response = await fetch(`${parsed.origin}${path}`, {
          method,
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
          ...(body === undefined ? {} : { body }),
        })
      } catch (error) {
        const text = unreachable(parsed.origin, error, timeoutMs)
        throw dropped(error) ? new ConnectionDropped(text) : new ToolError(text, { cause: error })
      }
      return asAnswer(response)
    },
  }
}

/** The code of a failed fetch's cause (`ECONNREFUSED`, `UND_ERR_SOCKET`…). */
function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } }).cause
  return cause?.code ?? cause?.errors?.[0]?.code
}

/** Whether a fetch failed because the server closed or reset the connection, not answering. */
function dropped(error: unknown): boolean {
  const code = causeCode(error)
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
}

/**
 * A running server closed or reset the connection instead of answering: to `call_api` an answer
 * of status 0 (a drop override, a 1xx, dropRate), as in process; to the other tools a failure.
 */
export class ConnectionDropped extends ToolError {}

/** What `call_api` answers for a dropped connection: status 0, no headers, no body. */
export const noAnswer = (): Promise<Answer> => asAnswer(Response.error())

/** Why a request to a running server got no answer, in words. */
function unreachable(origin: string, error: unknown, timeoutMs: number): string {
  const code = causeCode(error)
  if ((error as Error).name === 'TimeoutError')
    return `the sandbox server at ${origin} did not answer within ${timeoutMs / 1000} s`
  if (dropped(error)) return `the sandbox server at ${origin} dropped the connection`
  return `cannot reach the sandbox server at ${origin}: ${code ?? (error as Error).message}`
}
