import { connect } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { request as requestArbitrary } from '../support/arbitraries.js'

/**
 * The two transports of the Node server answer the same bytes on the wire with the same status,
 * headers and body (request ids, dates and ports aside): a differential test over generated
 * requests with duplicate headers, odd methods, missing and hostile origins, bad bodies and
 * encodings, sent as raw HTTP so nothing normalizes them on the way.
 */

const CLOCK = new Date('2026-06-01T12:00:00.000Z')

const rarely = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value })

const extra = fc.record({
  origin: rarely(
    fc.constantFrom(
      'http://localhost:5173',
      'http://127.0.0.1:3000',
      'http://evil.test',
      'null',
      'https://localhost',
    ),
  ),
  authorizationTwice: rarely(fc.constantFrom('Bearer sandbox-admin-token', 'Bearer nope')),
  contentTypeTwice: rarely(fc.constantFrom('application/json', 'text/plain')),
  preflight: fc.oneof(
    { weight: 9, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
  accept: rarely(fc.constantFrom('text/html', 'application/json', '*/*')),
})

/** Requests a client of the API sends: real routes, real tokens, valid and invalid bodies. */
const realistic = fc.record({
  method: fc.constantFrom('GET', 'GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
  path: fc.constantFrom(
    '/users',
    '/users/1',
    '/users/2',
    '/users/3',
    '/users/7/orders',
    '/users/2/orders/1',
    '/products',
    '/products/4',
    '/orders',
    '/orders/5',
    '/sessions',
    '/sessions/current',
    '/__sandbox',
    '/__sandbox/requests',
    '/__sandbox/overrides',
    '/__sandbox/config',
    '/openapi.json',
  ),
  query: fc.constantFrom(
    '',
    '',
    '?page=2&pageSize=5',
    '?sort=name&order=desc',
    '?fields=id,name',
    '?keyword=a&status=active',
    '?pageSize=500',
    '?order=desc&pageSize=3',
  ),
  authorization: fc.constantFrom(
    'Bearer sandbox-admin-token',
    'Bearer sandbox-admin-token',
    'Bearer sandbox-member-token',
    undefined,
  ),
  contentType: fc.constantFrom('application/json', 'application/json', undefined),
  body: fc.constantFrom(
    undefined,
    '{"name":"diff-user","email":"diff@example.com"}',
    '{"name":"Renamed"}',
    '{"status":"paid"}',
    '{"items":[{"productId":2,"quantity":1}]}',
    '{"userId":3,"items":[{"productId":4,"quantity":2}]}',
    '{"email":"admin@example.com","password":"password"}',
    '{"path":"/stubbed","response":{"status":200,"data":1}}',
    '{"delay":0}',
    '{"name":"X","sku":"DIFF-1","price":2.5,"stock":4}',
    '{"name":""}',
  ),
  prefer: fc.constantFrom(undefined, undefined, 'return=representation', 'code=409'),
  sandboxId: fc.constantFrom(undefined, undefined, 'worker-1'),
})

type Generated = Omit<
  typeof realistic extends fc.Arbitrary<infer T> ? T : never,
  'method' | 'path' | 'contentType' | 'prefer' | 'sandboxId'
> & { method: string; path: string; contentType?: string; prefer?: string; sandboxId?: string }
type Extras = typeof extra extends fc.Arbitrary<infer T> ? T : never

interface Raw {
  status: number
  headers: Array<[string, string]>
  body: string
}

/** Sends raw HTTP/1.1 bytes and reads the whole answer (the connection is closed after it). */
function send(port: number, bytes: Buffer): Promise<Raw | 'reset'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', () => resolve('reset'))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      if (text === '') return resolve('reset')
      const split = text.indexOf('\r\n\r\n')
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n')
      const headers = lines.map((line) => {
        const colon = line.indexOf(':')
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [
          string,
          string,
        ]
      })
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) })
    })
    socket.end(bytes)
  })
}

/** What may differ between two servers: when, which port, which random token. */
function normalized(answer: Raw | 'reset', port: number) {
  if (answer === 'reset') return answer
  // content-length follows the body, compared after its normalization.
  const ignored = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'content-length'])
  const portless = (text: string) =>
    text
      .replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT')
      .replace(/sbx_[A-Za-z0-9_-]+/g, 'sbx_TOKEN')
      .replace(/"durationMs":[0-9.]+/g, '"durationMs":0')
      .replace(/"x-request-id":"[^"]*"/g, '"x-request-id":"ID"')
  return {
    status: answer.status,
    headers: answer.headers
      .filter(([name]) => !ignored.has(name))
      .map(([name, value]) => `${name}: ${portless(value)}`)
      .sort(),
    body: portless(answer.body),
  }
}

function rawRequest(port: number, request: Generated, extras: Extras, index: number): Buffer {
  const method = extras.preflight ? 'OPTIONS' : request.method
  const lines = [
    `${method} ${request.path}${request.query} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
    `X-Request-Id: diff-${index}`,
  ]
  const header = (name: string, value: unknown) => {
    if (typeof value === 'string' && !/[\r\n\u0000]/.test(value) && !/[^\u0000-\u00ff]/.test(value))
      lines.push(`${name}: ${value}`)
  }
  header('Authorization', request.authorization)
  header('Authorization', extras.authorizationTwice)
  header('Content-Type', request.contentType)
  header('Content-Type', extras.contentTypeTwice)
  header('Prefer', request.prefer)
  header('X-Sandbox-Id', request.sandboxId)
  header('Origin', extras.origin)
  header('Accept', extras.accept)
  if (extras.preflight) header('Access-Control-Request-Method', request.method)
  const body = request.body === undefined ? null : Buffer.from(request.body)
  if (body) lines.push(`Content-Length: ${body.byteLength}`)
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    body ?? Buffer.alloc(0),
  ])
}

describe('the fast and msw transports answer alike (differential)', () => {
  const servers: Record<'fast' | 'msw', SandboxServer | undefined> = {
    fast: undefined,
    msw: undefined,
  }
  beforeAll(async () => {
    for (const transport of ['fast', 'msw'] as const) {
      servers[transport] = await createSandboxServer({
        port: 0,
        transport,
        clock: () => CLOCK,
        onUnexpectedError: () => undefined,
      })
    }
  })
  afterAll(async () => {
    await servers.fast?.close()
    await servers.msw?.close()
  })

  it('400 generated requests, in the same order to both, get the same answers', async () => {
    const samples = fc.sample(
      fc.tuple(fc.oneof(realistic, requestArbitrary as fc.Arbitrary<Generated>), extra),
      {
        numRuns: 400,
        seed: 20261123,
      },
    )
    const mismatches: string[] = []
    for (const [index, [generated, extras]] of samples.entries()) {
      const answers = []
      for (const transport of ['fast', 'msw'] as const) {
        const { port } = servers[transport]!
        answers.push(normalized(await send(port, rawRequest(port, generated, extras, index)), port))
      }
      const [fast, msw] = answers
      const [left, right] = [JSON.stringify(fast), JSON.stringify(msw)]
      if (left !== right) {
        // Where they part, with some context on each side.
        let at = 0
        while (left[at] === right[at]) at++
        const around = (text: string) => text.slice(Math.max(0, at - 150), at + 250)
        mismatches.push(
          `${JSON.stringify({ generated, extras }).slice(0, 400)}\n fast: …${around(left)}\n msw:  …${around(right)}`,
        )
      }
    }
    expect(mismatches.slice(0, 3).join('\n\n')).toBe('')
  })
})
