/**
 * `shop-sandbox/node`: the sandbox for Node.js test suites and servers.
 * @module
 */

export * from '../index.js'
export type { SandboxServer, SandboxServerOptions } from './create-server.js'
export type { ServerTimeouts } from '../server/timeouts.js'
export { timeouts } from '../server/timeouts.js'
export { createSandboxServer } from './create-server.js'
export type { SandboxListenOptions, SetupSandboxResult } from './setup-sandbox.js'
export { setupSandbox } from './setup-sandbox.js'
