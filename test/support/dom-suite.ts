import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { setupSandbox } from '../../node/index.js'

/**
 * The README's flow in a DOM-like Vitest environment (the calling file names it): its own
 * fetch (happy-dom's enforces CORS) and a page origin of its own.
 */
export function domEnvironmentSuite(): void {
  const sandbox = setupSandbox({ baseUrl: 'https://api.example.test' })
  beforeAll(() => sandbox.listen({ onUnhandledRequest: 'error' }))
  afterEach(() => sandbox.reset())
  afterAll(() => sandbox.close())
  const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }

  it('creates and reads a user across origins, reading the exposed headers', async () => {
    const created = await fetch('https://api.example.test/users', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'dom', email: 'dom@example.com' }),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe('/users/51')
    const read = await fetch('https://api.example.test/users/51', { headers: admin })
    expect((await read.json()).data.name).toBe('dom')
  })

  it('gives the contract errors, not a CORS failure', async () => {
    const response = await fetch('https://api.example.test/users', { headers: {} })
    expect(response.status).toBe(401)
    expect((await response.json()).code).toBe(40100)
  })
}
