import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import type { Call, CallOptions } from '../support/client.js'
import { clientFor, MEMBER } from '../support/client.js'
import { useInProcessSandbox } from '../support/in-process.js'

/**
 * CONTRACT B4's order of checks, first failure wins: route (404, 405) → authentication (401) →
 * permission (403) → path id and query parameters (400) → body size, type and JSON syntax
 * (413, 415, 400) → the record exists (404) → field validation (422) → conflicts (409).
 * Each row makes a request fail two adjacent checks at once; the earlier one must answer.
 */
const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) })
const pairs: Array<{
  pair: string
  method: string
  path: string
  options?: CallOptions
  status: number
  code: number
}> = [
  {
    pair: 'route 404 before 401',
    method: 'GET',
    path: '/customers',
    options: { token: null },
    status: 404,
    code: 40400,
  },
  {
    pair: 'method 405 before 401',
    method: 'POST',
    path: '/users/1',
    options: { token: null },
    status: 405,
    code: 40500,
  },
  {
    pair: '401 before 400 (path id)',
    method: 'GET',
    path: '/users/abc',
    options: { token: null },
    status: 401,
    code: 40100,
  },
  {
    pair: '401 (bad token) before 400 (query)',
    method: 'GET',
    path: '/users?page=0',
    options: { token: 'nope' },
    status: 401,
    code: 40101,
  },
  {
    pair: '403 before 400 (query)',
    method: 'GET',
    path: '/orders?page=0',
    options: { token: MEMBER },
    status: 403,
    code: 40300,
  },
  {
    pair: '403 before 400 (path id)',
    method: 'DELETE',
    path: '/products/abc',
    options: { token: MEMBER },
    status: 403,
    code: 40300,
  },
  {
    pair: '400 (path id) before 413',
    method: 'PUT',
    path: '/users/abc',
    options: { raw: big, headers: { 'content-type': 'application/json' } },
    status: 400,
    code: 40000,
  },
  {
    pair: '400 (query, strict mode) before 415',
    method: 'PATCH',
    path: '/users/3?colour=red',
    options: { raw: 'x', headers: { 'content-type': 'text/plain' } },
    status: 400,
    code: 40000,
  },
  {
    pair: '413 before 415',
    method: 'POST',
    path: '/users',
    options: { raw: big, headers: { 'content-type': 'text/plain' } },
    status: 413,
    code: 41300,
  },
  {
    pair: '415 before 400 (JSON syntax)',
    method: 'POST',
    path: '/users',
    options: { raw: '{nope', headers: { 'content-type': 'text/plain' } },
    status: 415,
    code: 41500,
  },
  {
    pair: '400 (JSON syntax) before 404 (record)',
    method: 'PUT',
    path: '/users/999',
    options: { raw: '{nope', headers: { 'content-type': 'application/json' } },
    status: 400,
    code: 40004,
  },
  {
    pair: '400 (JSON syntax) before 404 (owner)',
    method: 'POST',
    path: '/users/999/orders',
    options: { raw: '{nope', headers: { 'content-type': 'application/json' } },
    status: 400,
    code: 40004,
  },
  {
    pair: '400 (query) before 404 (record)',
    method: 'GET',
    path: '/products/999?fields=bogus',
    status: 400,
    code: 40000,
  },
  {
    pair: '400 (repeated parameter) before 404 (record)',
    method: 'GET',
    path: '/users/999?fields=id&fields=name',
    status: 400,
    code: 40000,
  },
  {
    pair: '400 (query) before 404 (owner)',
    method: 'GET',
    path: '/users/999/orders?page=0',
    status: 400,
    code: 40000,
  },
  {
    pair: '400 (query) before 404 (nested record)',
    method: 'GET',
    path: '/users/999/orders/1?fields=bogus',
    status: 400,
    code: 40000,
  },
  {
    pair: '404 (record) before 422',
    method: 'PATCH',
    path: '/users/999',
    options: { body: { email: 'not an e-mail' } },
    status: 404,
    code: 40400,
  },
  {
    pair: '404 (owner) before 422',
    method: 'POST',
    path: '/users/999/orders',
    options: { body: { items: [] } },
    status: 404,
    code: 40400,
  },
  {
    pair: '422 before 409',
    method: 'POST',
    path: '/users',
    options: { body: { name: 'admin', email: 'not an e-mail' } },
    status: 422,
    code: 42200,
  },
]

/** The rows, run against one target. */
function walk(target: () => Call) {
  it.each(pairs)('$pair', async ({ method, path, options, status, code }) => {
    const strict = path.includes('colour')
    const call = target()
    if (strict) await call('PATCH', '/__sandbox/config', { token: null, body: { strict: true } })
    try {
      const reply = await call(method, path, options)
      expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code })
    } finally {
      if (strict) await call('PATCH', '/__sandbox/config', { token: null, body: { strict: false } })
    }
  })
}

describe('B4 order of checks, in process (MSW)', () => {
  const { call } = useInProcessSandbox()
  walk(() => call)
})

describe.each(['fast', 'msw'] as const)(
  'B4 order of checks over HTTP (--transport %s)',
  (transport) => {
    let server: SandboxServer
    let call: Call
    beforeAll(async () => {
      server = await createSandboxServer({ port: 0, transport })
      call = clientFor(server.url)
    })
    afterAll(() => server.close())
    walk(() => call)
  },
)
