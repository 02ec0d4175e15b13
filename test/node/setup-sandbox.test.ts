import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupSandbox } from '../../node/index.js'

const sandbox = setupSandbox({ baseUrl: 'https://setup.example.test' })
beforeAll(() => sandbox.listen({ onUnhandledRequest: 'error' }))
afterAll(() => sandbox.close())

describe('setupSandbox', () => {
  it('is MSW’s server and the sandbox at once', async () => {
    const response = await fetch('https://setup.example.test/users/1', {
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(response.status).toBe(200)
    expect(sandbox.db.users.size).toBe(50)
    expect(sandbox.server).toBe(sandbox)
    expect(sandbox.sandbox.db).toBe(sandbox.db)
    expect(sandbox.listHandlers()).toHaveLength(1)
  })

  it('resets the data, and exposes the runtime settings', async () => {
    await fetch('https://setup.example.test/users/5', {
      method: 'DELETE',
      headers: { authorization: 'Bearer sandbox-admin-token' },
    })
    expect(sandbox.db.users.get(5)).toBeUndefined()
    sandbox.reset()
    expect(sandbox.db.users.get(5)).toBeDefined()
    expect(sandbox.config).toEqual({
      delay: 0,
      errorRate: 0,
      dropRate: 0,
      strict: false,
      auth: true,
    })
  })
})

describe('listen() options', () => {
  // A misspelt option left unclaimed requests bypassed, silently, where the test meant 'error'.
  it.each([
    [
      { onUnhandled: 'error' },
      'listen(): onUnhandled is not an option (onUnhandledRequest, onUnhandledFrame)',
    ],
    [
      { onUnhandledRequests: 'error' },
      'listen(): onUnhandledRequests is not an option; did you mean onUnhandledRequest?',
    ],
    [
      { onUnhandledRequest: 'erorr' },
      "listen(): onUnhandledRequest must be 'bypass', 'warn', 'error' or a function, got \"erorr\"",
    ],
    [
      { onUnhandledFrame: 7 },
      "listen(): onUnhandledFrame must be 'bypass', 'warn', 'error' or a function, got 7",
    ],
  ])('refuses %j, naming the option', (options, message) => {
    const other = setupSandbox({ baseUrl: 'https://other.example.test' })
    expect(() => other.listen(options as never)).toThrow(new TypeError(message))
    // Refused before MSW listened: closing finds nothing to close.
    expect(() => other.close()).not.toThrow()
  })
})
