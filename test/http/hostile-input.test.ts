import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ApiRequest, ApiResponse, DbDocument, Sandbox } from '../../index.js'
import { checkDocument, codes, createSandbox } from '../../index.js'
import { jsonDepthExceeds, MAX_BODY_KEYS } from '../../http/body.js'
import { request } from '../support/arbitraries.js'

type Generated = typeof request extends fc.Arbitrary<infer R> ? R : never

const statusOfCode = new Map(Object.values(codes).map((entry) => [entry.code, entry.status]))

/** Builds the pipeline's request from a generated one, as any transport would. */
function toApiRequest(generated: Generated): ApiRequest {
  const headers: Record<string, string | undefined> = {
    authorization: generated.authorization,
    'content-type': generated.contentType,
    prefer: generated.prefer,
    'x-sandbox-id': generated.sandboxId,
  }
  const bytes =
    generated.body === undefined ? new Uint8Array(0) : new TextEncoder().encode(generated.body)
  return {
    method: generated.method.toUpperCase(),
    url: new URL(`http://sandbox.test${generated.path}${generated.query}`),
    header: (name) => headers[name] ?? null,
    readBody: async (limit) => (bytes.byteLength > limit ? 'too-large' : bytes),
  }
}

/** The invariants every single response keeps, whatever was sent. */
function assertWellFormed(generated: Generated, response: ApiResponse, where: string): void {
  // The only 500 is one the request asked for (Prefer: code=500).
  if (response.status === 500) {
    expect(response.code, where).toBe(50000)
    if (response.body !== null) expect(response.body, where).toContain('forced by Prefer: code=500')
  }
  expect(response.headers['x-request-id'], where).toBeTruthy()
  if (response.status === 204 || generated.method.toUpperCase() === 'HEAD') {
    expect(response.body, where).toBeNull()
    return
  }
  expect(response.headers['content-type'], where).toBe('application/json; charset=utf-8')
  const parsed = JSON.parse(response.body!)
  if (
    new URL(`http://sandbox.test${generated.path}`).pathname === '/openapi.json' &&
    response.status === 200
  )
    return
  expect(Object.keys(parsed).sort(), where).toEqual(['code', 'data', 'message'])
  expect(typeof parsed.message, where).toBe('string')
  if (response.status < 300) {
    expect(parsed.code, where).toBe(0)
  } else {
    expect(parsed.data, where).toBeNull()
    expect(statusOfCode.get(parsed.code), `${where}: code ${parsed.code}`).toBe(response.status)
  }
  expect(response.body, where).not.toMatch(/\bat .*\.(js|ts):\d+|node_modules|\/work\//)
}

/** The invariants of the data after any sequence of requests. */
function assertDataValid(sandbox: Sandbox): void {
  for (const name of [null, 'worker-1', 'worker-2']) {
    const document = sandbox.instance(name).store.toJSON() as DbDocument
    const check = checkDocument(document)
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true })
    for (const product of document.products) expect(product.stock).toBeGreaterThanOrEqual(0)
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(Object.keys(Object.prototype)).toEqual([])
}

function fingerprint(sandbox: Sandbox): unknown[] {
  const { users, products, orders } = sandbox.db
  return [
    ...users.all(),
    ...products.all(),
    ...orders.all(),
    users.nextId,
    products.nextId,
    orders.nextId,
  ]
}

/** A small sandbox where anything unexpected fails the property instead of being answered 500. */
function smallSandbox(): Sandbox {
  return createSandbox({
    users: 6,
    products: 5,
    orders: 6,
    onUnexpectedError: (error) => {
      throw error
    },
  })
}

describe('hostile input (property-based, in-process)', () => {
  it('every response is a well-formed envelope with a contract status and code, never a 500', async () => {
    const sandbox = smallSandbox()
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const response = await sandbox.handle(toApiRequest(generated))
        assertWellFormed(
          generated,
          response,
          `${generated.method} ${generated.path}${generated.query}`,
        )
      }),
      { numRuns: 1500 },
    )
    assertDataValid(sandbox)
  })

  it('GET, HEAD and OPTIONS never change the data', async () => {
    const sandbox = smallSandbox()
    const reads = request.map((generated) => ({
      ...generated,
      method: (['GET', 'HEAD', 'OPTIONS'] as const)[generated.path.length % 3]!,
    }))
    await fc.assert(
      fc.asyncProperty(reads, async (generated) => {
        const before = fingerprint(sandbox)
        await sandbox.handle(toApiRequest({ ...generated, sandboxId: undefined }))
        expect(fingerprint(sandbox)).toEqual(before)
      }),
      { numRuns: 800 },
    )
  })

  it('after any sequence of requests the data validates, references hold, stock ≥ 0, prototypes untouched', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 40 }), async (sequence) => {
        const sandbox = smallSandbox()
        for (const generated of sequence) {
          const response = await sandbox.handle(toApiRequest(generated))
          assertWellFormed(generated, response, `${generated.method} ${generated.path}`)
        }
        assertDataValid(sandbox)
      }),
      { numRuns: 150 },
    )
  })

  it('an unexpected error is a 500 envelope that leaks nothing', async () => {
    const seen: unknown[] = []
    const sandbox = createSandbox({ onUnexpectedError: (error) => seen.push(error) })
    const response = await sandbox.handle({
      method: 'GET',
      url: new URL('http://sandbox.test/users/1'),
      header: (name) => {
        if (name === 'authorization') throw new Error('boom in /srv/secret/path.ts:12')
        return null
      },
      readBody: async () => new Uint8Array(0),
    })
    expect(response.status).toBe(500)
    expect(JSON.parse(response.body!)).toEqual({
      code: 50000,
      message: 'internal server error',
      data: null,
    })
    expect(seen).toHaveLength(1)
  })
})

describe('the nesting check (C3)', () => {
  /** The scan alone, as it was before the count of `{` and `[` let most bodies skip it. */
  const scanned = (text: string, max: number) => {
    let depth = 0
    let inString = false
    for (let index = 0; index < text.length; index++) {
      const char = text[index]
      if (inString) {
        if (char === '\\') index++
        else if (char === '"') inString = false
      } else if (char === '"') inString = true
      else if (char === '{' || char === '[') {
        if (++depth > max) return true
      } else if (char === '}' || char === ']') depth--
    }
    return false
  }

  it('refuses exactly what a scan of the whole text refuses', () => {
    const text = fc
      .array(fc.constantFrom('{', '[', '}', ']', '"', '\\', 'a', ','), { maxLength: 40 })
      .map((chars) => chars.join(''))
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 6 }), (value, max) => {
        expect(jsonDepthExceeds(value, max)).toBe(scanned(value, max))
      }),
      { numRuns: 5000 },
    )
  })
})

describe('the keys bound of an API body (C3)', () => {
  const sandbox = createSandbox()
  const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
  /** A user's create body with `extra` more keys, none seen before (what costs a parse most). */
  const wide = (extra: number, email: string) => {
    const keys = Array.from({ length: extra }, (_, index) => `"${email}-${index}":0`)
    return `{${keys.join(',')},"name":"wide one","email":"${email}@example.com"}`
  }

  it('a body with more keys than the bound is 413 / 41300 saying so, before it is parsed', async () => {
    const response = await sandbox.fetch('/users', {
      method: 'POST',
      headers: admin,
      body: wide(MAX_BODY_KEYS, 'too-wide'),
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({
      code: 41300,
      message: `body holds more than ${MAX_BODY_KEYS.toLocaleString('en')} keys in its objects, the most an API request's body may hold`,
      data: null,
    })
    expect(sandbox.db.users.all().some((user) => user.email === 'too-wide@example.com')).toBe(false)
  })

  it('one at the bound is read (unknown fields ignored), and colons in its strings are no keys', async () => {
    const atBound = await sandbox.fetch('/users', {
      method: 'POST',
      headers: admin,
      body: wide(MAX_BODY_KEYS - 2, 'at-bound'),
    })
    expect(atBound.status).toBe(201)
    const colons = await sandbox.fetch('/users', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: 'colons',
        email: 'colons@example.com',
        note: ':'.repeat(MAX_BODY_KEYS * 2),
      }),
    })
    expect(colons.status).toBe(201)
  })

  it("the control API's bodies are not API requests: an override's answer may hold more", async () => {
    const data = Object.fromEntries(
      Array.from({ length: MAX_BODY_KEYS + 1 }, (_, index) => [`k${index}`, index]),
    )
    const response = await sandbox.fetch('/__sandbox/overrides', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ method: 'GET', path: '/users', response: { status: 200, data } }),
    })
    expect(response.status).toBe(201)
  })
})
