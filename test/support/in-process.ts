import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll } from 'vitest'
import type { ShopSandboxOptions } from '../../index.js'
import { createSandbox } from '../../index.js'
import { unhandledOptions } from '../../sandbox/unhandled.js'
import { clientFor } from './client.js'

export const API = 'https://api.shop.test'

/**
 * A sandbox behind MSW's `setupServer` for the current test file, reset after every test.
 * Unhandled requests are errors, so a test cannot silently reach the network.
 */
export function useInProcessSandbox(options: ShopSandboxOptions<[]> = {}) {
  const sandbox = createSandbox({ baseUrl: API, ...options })
  const server = setupServer(...sandbox.handlers)
  beforeAll(() => server.listen(unhandledOptions('error')))
  afterEach(() => sandbox.reset())
  afterAll(() => server.close())
  return { sandbox, call: clientFor(API) }
}
