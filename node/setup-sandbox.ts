import type { SetupServer } from 'msw/node'
import { setupServer } from 'msw/node'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { createSandbox } from '../sandbox/create-sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'

/**
 * MSW's server holding the sandbox's handlers, with the sandbox's own members on it too
 * (`reset()`, `db`, `snapshot()`, …: none of their names collide with MSW's), and both parts
 * also reachable as `server` and `sandbox`.
 */
export type SetupSandboxResult = SetupServer & Sandbox & { server: SetupServer; sandbox: Sandbox }

/**
 * A sandbox wired into MSW's `setupServer`, for Vitest and Jest.
 *
 * @example
 * const sandbox = setupSandbox({ baseUrl: 'https://api.example.test' })
 * beforeAll(() => sandbox.listen({ onUnhandledRequest: 'error' }))
 * afterEach(() => sandbox.reset())
 * afterAll(() => sandbox.close())
 */
export function setupSandbox(options: SandboxOptions = {}): SetupSandboxResult {
  const sandbox = createSandbox(options)
  const server = setupServer(...sandbox.handlers)
  Object.defineProperties(server, Object.getOwnPropertyDescriptors(sandbox))
  return Object.assign(server, { server, sandbox }) as SetupSandboxResult
}
