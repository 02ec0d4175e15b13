/**
 * `shop-sandbox/browser`: the sandbox in the browser, behind MSW's service worker.
 * @module
 */

export * from '../index.js'
export type { BrowserSandbox, BrowserSandboxOptions } from './start-sandbox.js'
export { startSandbox } from './start-sandbox.js'
