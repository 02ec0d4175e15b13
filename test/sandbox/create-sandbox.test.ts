import { describe, expect, it } from 'vitest'
import { createApiSandbox } from '../../sandbox/create-sandbox.js'
import { shopApi } from '../../shop/index.js'

const base = 'https://api.abort.test'
const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }

describe('sandbox.fetch honours an AbortSignal as fetch does', () => {
  it('aborted before it is sent: rejected with the reason, and not answered (nothing made)', async () => {
    const sandbox = createApiSandbox({ api: shopApi, baseUrl: base })
    const controller = new AbortController()
    controller.abort()
    const sent = sandbox.fetch(`${base}/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'never made', email: 'never.made@example.com' }),
      signal: controller.signal,
    })
    await expect(sent).rejects.toMatchObject({ name: 'AbortError' })
    expect(sandbox.db.users.all().some((user) => user.name === 'never made')).toBe(false)
    expect(sandbox.requests()).toEqual([])
  })

  it('aborted while it is answered: rejected at once, not when the answer comes', async () => {
    const sandbox = createApiSandbox({ api: shopApi, baseUrl: base })
    const started = performance.now()
    const sent = sandbox.fetch(`${base}/users/1`, {
      headers: { ...admin, 'x-sandbox-delay': '2000' },
      signal: AbortSignal.timeout(50),
    })
    await expect(sent).rejects.toMatchObject({ name: 'TimeoutError' })
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('a signal not aborted changes nothing', async () => {
    const sandbox = createApiSandbox({ api: shopApi, baseUrl: base })
    const answer = await sandbox.fetch(`${base}/users/1`, {
      headers: admin,
      signal: new AbortController().signal,
    })
    expect(answer.status).toBe(200)
  })
})
