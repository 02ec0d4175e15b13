import type { ApiResponse } from '../../contract/exchange.js'
import { isPending } from '../../contract/exchange.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { toErrorResponse } from './errors.js'

/**
 * The request id (CONTRACT B6), around everything after it: every answer carries an
 * `X-Request-Id` (the client's when it sent a printable one, else a new one), a HEAD answer
 * no body, and anything a step throws becomes the contract's envelope here (a bad
 * `X-Sandbox-Id`, a control call's error: what no journal step caught first).
 */
export const requestId: Step<Context, Answer> = {
  name: 'request id',
  run(c, next) {
    c.requestId = c.request.requestId ?? requestIdFor(c.request.header('x-request-id'))
    let answer: Answer
    try {
      answer = next(c)
    } catch (error) {
      return finish(c, toErrorResponse(error, c.host.onUnexpectedError))
    }
    if (!isPending(answer)) return finish(c, answer)
    return answer.then(
      (response) => finish(c, response),
      (error: unknown) => finish(c, toErrorResponse(error, c.host.onUnexpectedError)),
    )
  },
}

/**
 * The client's `X-Request-Id` when it is at most 200 characters of printable ASCII (spaces and
 * tabs inside it too: `trace 42` is a header value like any), else a new one: a longer one is
 * not kept in every journal entry, and one past ASCII is not echoed as bytes a client reads
 * otherwise.
 */
export function requestIdFor(sent: string | null | undefined): string {
  if (typeof sent === 'string' && /^[\x21-\x7e][\t\x20-\x7e]{0,199}$/.test(sent)) return sent
  return newRequestId()
}

/** The last touch of every answer: its request id, and no body for a HEAD. */
function finish(c: Context, response: ApiResponse): ApiResponse {
  response.headers['x-request-id'] = c.requestId
  if (c.request.method === 'HEAD') response.body = null
  return response
}

/**
 * New request ids: UUID-shaped, a random UUID drawn once with its last 12 hex digits replaced
 * by a counter, so an id is unique within the process (and, by the random part, across
 * processes) and costs a counter step instead of a random UUID's string building per request.
 * Its first 10 of those digits are written once per 256 ids; the last 2 come from a table.
 */
let idPrefix = ''
let idCounter = 0
/** `idPrefix` and the counter's digits but the last two, as of the counter's last multiple of 256. */
let idHead = ''
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

function newRequestId(): string {
  if (idPrefix === '' || idCounter > 0xffff_ffff_ffff) {
    const uuid = randomUuid()
    idPrefix = uuid.slice(0, 24)
    idCounter = Number.parseInt(uuid.slice(24, 32), 16)
    idHead = ''
  }
  const low = idCounter % 256
  if (low === 0 || idHead === '')
    idHead =
      idPrefix +
      Math.floor(idCounter / 256)
        .toString(16)
        .padStart(10, '0')
  idCounter++
  return idHead + HEX_PAIRS[low]!
}

/**
 * A version 4 UUID from `Math.random` (seeded by the engine from the system's entropy): enough
 * for ids that must not repeat, never for secrets. Not `crypto.randomUUID`: loading Node's web
 * crypto costs a fresh test file's first answer ~1 ms, and pages served over plain http from
 * another machine lack it.
 */
function randomUuid(): string {
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => Math.floor(Math.random() * 16).toString(16)).join('')
  const variant = '89ab'[Math.floor(Math.random() * 4)]!
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`
}
