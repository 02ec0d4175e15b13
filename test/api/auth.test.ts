import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import { ADMIN, MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

const { call } = useInProcessSandbox()

describe('authentication (CONTRACT B4)', () => {
  it.each([
    { why: 'no Authorization header', headers: {}, code: 40100 },
    { why: 'an empty header', headers: { authorization: '' }, code: 40100 },
    { why: 'an unknown token', headers: { authorization: 'Bearer nope' }, code: 40101 },
    { why: 'another scheme', headers: { authorization: `Basic ${ADMIN}` }, code: 40101 },
    { why: 'a scheme without token', headers: { authorization: 'Bearer' }, code: 40101 },
    { why: 'a token with a space', headers: { authorization: 'Bearer a b' }, code: 40101 },
    {
      why: 'a fixed token with a suffix',
      headers: { authorization: `Bearer ${ADMIN}x` },
      code: 40101,
    },
  ])('401 / $code for $why, with WWW-Authenticate: Bearer', async ({ headers, code }) => {
    const reply = await call('GET', '/products', { token: null, headers })
    expect(reply.status).toBe(401)
    expect(reply.body).toEqual({ code, message: expect.any(String), data: null })
    expect(reply.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('accepts the scheme case-insensitively', async () => {
    expect(
      (
        await call('GET', '/products', {
          token: null,
          headers: { authorization: `bearer ${ADMIN}` },
        })
      ).status,
    ).toBe(200)
  })

  it('signs in with e-mail and password, uses the token, and signs out', async () => {
    const signIn = await call('POST', '/sessions', {
      token: null,
      body: { email: 'MEMBER@example.com', password: 'password' },
    })
    expect(signIn.status).toBe(201)
    const { token, expiresAt, user } = signIn.body.data
    expect(token).toMatch(/^sbx_[0-9a-f]{48}$/)
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(3590_000)
    expect(user).toMatchObject({ id: 2, email: 'member@example.com', role: 'member' })
    expect((await call('GET', '/users/2', { token })).status).toBe(200)
    expect((await call('GET', '/users', { token })).status).toBe(403)
    const signOut = await call('DELETE', '/sessions/current', { token })
    expect(signOut.status).toBe(204)
    const after = await call('GET', '/users/2', { token })
    expect(after.status).toBe(401)
    expect(after.body.code).toBe(40101)
  })

  it.each([
    { body: { email: 'admin@example.com', password: 'wrong' } },
    { body: { email: 'nobody@example.com', password: 'password' } },
  ])('401 / 40102 for wrong credentials', async ({ body }) => {
    const reply = await call('POST', '/sessions', { token: null, body })
    expect(reply.status).toBe(401)
    expect(reply.body.code).toBe(40102)
    expect(reply.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('422 when the credentials are not strings', async () => {
    const reply = await call('POST', '/sessions', { token: null, body: { email: 1 } })
    expect(reply.status).toBe(422)
    expect(reply.body.message).toContain('password: is required')
  })

  it('DELETE /sessions/current with Prefer: return=representation is 200 with the session ended (B2)', async () => {
    const signIn = await call('POST', '/sessions', {
      token: null,
      body: { email: 'member@example.com', password: 'password' },
    })
    const { token } = signIn.body.data
    const prefer = { prefer: 'return=representation' }
    const signOut = await call('DELETE', '/sessions/current', { token, headers: prefer })
    expect(signOut.status).toBe(200)
    expect(signOut.body).toEqual({ code: 0, message: 'success', data: signIn.body.data })
    expect((await call('GET', '/users/2', { token })).status).toBe(401)
    // A fixed token ends nothing: 204 still.
    const fixed = await call('DELETE', '/sessions/current', { token: MEMBER, headers: prefer })
    expect(fixed.status).toBe(204)
  })

  it('DELETE /sessions/current needs a token', async () => {
    expect((await call('DELETE', '/sessions/current', { token: null })).status).toBe(401)
  })

  it('the fixed tokens keep working after a sign-out with them', async () => {
    expect((await call('DELETE', '/sessions/current', { token: MEMBER })).status).toBe(204)
    expect((await call('GET', '/users/2', { token: MEMBER })).status).toBe(200)
  })

  it('a token whose user was deleted is a 401', async () => {
    const { token } = (
      await call('POST', '/sessions', {
        token: null,
        body: { email: 'admin@example.com', password: 'password' },
      })
    ).body.data
    const target = (await call('GET', '/users/10')).body.data
    const own = await call('POST', '/sessions', {
      token: null,
      body: { email: target.email, password: 'password' },
    })
    expect(own.status).toBe(201)
    expect((await call('DELETE', '/users/10', { token })).status).toBe(204)
    expect((await call('GET', '/products', { token: own.body.data.token })).body.code).toBe(40101)
  })
})

describe('token expiry', () => {
  it('a session token expires after the token TTL', async () => {
    let now = Date.parse('2026-06-01T00:00:00.000Z')
    const sandbox = createSandbox({ tokenTtl: 60, clock: () => now })
    const signIn = await sandbox.fetch('/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'password' }),
    })
    const { token, expiresAt } = (await signIn.json()).data
    expect(expiresAt).toBe('2026-06-01T00:01:00.000Z')
    const get = () => sandbox.fetch('/products', { headers: { authorization: `Bearer ${token}` } })
    now += 59_000
    expect((await get()).status).toBe(200)
    now += 1_000
    const expired = await get()
    expect(expired.status).toBe(401)
    expect((await expired.json()).code).toBe(40101)
  })
})
