/**
 * `shop-sandbox/browser`: the sandbox in the browser, behind MSW's service worker.
 * @module
 */

import { faker } from '@faker-js/faker/locale/base'
import { provideFaker } from '../resources/seed-sources.js'

// A browser has no `require`: the seeder takes faker from here (resources/seed-sources.ts).
// package.json lists this module under "sideEffects" so bundlers keep this call.
provideFaker(faker)

export * from '../index.js'
export type { BrowserSandbox, BrowserSandboxOptions } from './start-sandbox.js'
export { startSandbox } from './start-sandbox.js'
