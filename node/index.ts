/**
 * `shop-sandbox/node`: the sandbox for Node.js test suites and servers.
 * @module
 */

export * from '../index.js'
export type { SandboxServer, SandboxServerOptions, ServerTimeouts } from '../server/server.js'
export { createSandboxServer, timeouts } from '../server/server.js'
export type { SetupSandboxResult } from './setup-sandbox.js'
export { setupSandbox } from './setup-sandbox.js'
