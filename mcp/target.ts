import { trimSlashes } from '../contract/params.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'

/** An answer as the MCP tools hand it on: the exact status and headers, the body's text. */
export interface Answer {
  status: number
  headers: Record<string, string>
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

const asAnswer = async (response: Response): Promise<Answer> => ({
  status: response.status,
  headers: Object.fromEntries(response.headers),
  text: await response.text(),
})

/** A sandbox in this process: answered by its pipeline, no network. */
export function inProcess(sandbox: Sandbox): Target {
  return {
    basePath: sandbox.options.basePath,
    where: 'a sandbox in the MCP server’s own process',
    send: async (method, path, headers, body) =>
      asAnswer(
        await sandbox.fetch(path, { method, headers, ...(body === undefined ? {} : { body }) }),
      ),
  }
}

/** A running sandbox server (`shop-sandbox mcp --url http://127.0.0.1:4010`). */
export function remote(url: string, timeoutMs = 30_000): Target {
  const parsed = new URL(url)
  const basePath = trimSlashes(parsed.pathname)
  return {
    basePath,
    where: `the sandbox server at ${parsed.origin}${basePath}`,
    async send(method, path, headers, body) {
      try {
        return await asAnswer(
          await fetch(`${parsed.origin}${path}`, {
            method,
            headers,
            redirect: 'manual',
            signal: AbortSignal.timeout(timeoutMs),
            ...(body === undefined ? {} : { body }),
          }),
        )
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause
        throw new Error(
          `cannot reach the sandbox server at ${parsed.origin}: ${cause?.code ?? (error as Error).message}`,
          { cause: error },
        )
      }
    },
  }
}
