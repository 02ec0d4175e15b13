import { afterAll, beforeAll } from 'vitest'
import type { SandboxServer, SandboxServerOptions } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import type { Call } from './client.js'
import { clientFor } from './client.js'

/** A real HTTP server on a free port for the current test file. */
export function useSandboxServer(options: SandboxServerOptions = {}) {
  const state: { server?: SandboxServer; call?: Call; lines: string[] } = { lines: [] }
  beforeAll(async () => {
    state.server = await createSandboxServer({
      port: 0,
      log: (line) => state.lines.push(line),
      ...options,
    })
    state.call = clientFor(state.server.url)
  })
  afterAll(() => state.server?.close())
  return {
    get server() {
      return state.server!
    },
    call: ((...args) => state.call!(...args)) as Call,
    logLines: state.lines,
  }
}
