import type { SetupServer } from 'msw/node'
import { setupServer } from 'msw/node'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { createSandbox } from '../sandbox/create-sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'

export interface SetupSandboxResult {
  /** MSW's server, already holding the sandbox's handlers: call `listen()` and `close()`. */
  server: SetupServer
  sandbox: Sandbox
}

/**
 * A sandbox wired into MSW's `setupServer`, for Vitest and Jest.
 *
 * @example
 * const { server, sandbox } = setupSandbox({ baseUrl: 'https://api.example.test' })
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
 * afterEach(() => sandbox.reset())
 * afterAll(() => server.close())
 */
export function setupSandbox(options: SandboxOptions = {}): SetupSandboxResult {
  const sandbox = createSandbox(options)
  return { server: setupServer(...sandbox.handlers), sandbox }
}
