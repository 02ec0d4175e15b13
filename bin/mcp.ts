import * as z from 'zod'
import { createSandbox } from '../index.js'
import { startupExitCode, USAGE_ERROR } from './exit-codes.js'

/**
 * `shop-sandbox mcp`: the sandbox as a Model Context Protocol server over stdio (CONTRACT C6),
 * for a coding agent. Without `url`, a sandbox in this process made from serve's data options;
 * with `url`, every tool acts on that running server through its API and control API. The
 * MCP SDK is loaded here only: nothing else of the package carries it. Stdout is the protocol's:
 * everything else goes to stderr.
 */
export async function mcp(
  options: { url?: string | undefined; sandbox: Record<string, unknown> },
  version: string,
): Promise<void> {
  let target
  const { inProcess, remote } = await import('../mcp/target.js')
  if (options.url !== undefined) {
    const url = z
      .url({
        protocol: /^https?$/,
        error: 'must be the URL of a running sandbox, like http://127.0.0.1:4010',
      })
      .safeParse(options.url)
    const parts = url.success ? new URL(url.data) : null
    const problem = !url.success
      ? url.error.issues[0]!.message
      : parts!.username || parts!.password || parts!.search || parts!.hash
        ? "must be the server's address and base path only: no credentials, query or fragment"
        : null
    if (problem) {
      console.error(`shop-sandbox mcp: --url ${problem}, got '${options.url.slice(0, 200)}'`)
      process.exitCode = USAGE_ERROR
      return
    }
    target = remote(url.data!)
  } else {
    try {
      target = inProcess(createSandbox(options.sandbox))
    } catch (error) {
      console.error(`shop-sandbox mcp: ${(error as Error).message}`)
      process.exitCode = startupExitCode(error)
      return
    }
  }
  const { serveMcp } = await import('../mcp/server.js')
  await serveMcp(target, { name: 'shop-sandbox', version })
  console.error(`shop-sandbox mcp ${version}: serving ${target.where} over stdio`)
}
