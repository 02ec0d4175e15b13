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
