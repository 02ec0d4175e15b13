import type { SandboxServer, SandboxServerOptions } from '../server/server.js'

/**
 * Starts the sandbox as a real HTTP server (see the README's "As a local server"). The server
 * code loads on the first call, so `setupSandbox` users never load it.
 *
 * @example
 * const server = await createSandboxServer({ port: 0 })
 * const res = await fetch(`${server.url}/users`, { headers: { authorization: 'Bearer sandbox-admin-token' } })
 * await server.close()
 */
export async function createSandboxServer(
  options: SandboxServerOptions = {},
): Promise<SandboxServer> {
  const server = await import('../server/server.js')
  return server.createSandboxServer(options)
}
