import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiError } from '../contract/api-error.js'
import type { ApiRequest } from '../contract/exchange.js'
import { concat } from '../contract/exchange.js'
import { discardBody } from './respond.js'
import { SLOWEST_READ, timeouts } from './timeouts.js'

const LOCAL_HOST = 'sandbox.local'
const LOCAL_ORIGIN = `http://${LOCAL_HOST}`

/**
 * An origin-form target the URL parser would give back unchanged: a path and a query of
 * characters it leaves as they are, no `.` or `..` segment (written out or `%2e`), no fragment. (The path's set leaves
 * out what WHATWG URL percent-encodes or rewrites in a path: controls, space, `"`, `#`, `<`,
 * `>`, `?`, backquote, braces, `\`, non-ASCII; the query's also leaves out `'`.)
 */
const PLAIN_TARGET = /^(\/[\w\-.~!$&'()*+,;=:@%/]*)(\?[\w\-.~!$&()*+,;=:@%/?]*)?$/
const DOT_SEGMENT = /\/(?:\.|%2e)(?:\.|%2e)?(?:\/|$)/i

/**
 * The URL of a request target. Origin-form targets (`/users?page=2`, also `//x`) are appended
 * to a local origin, never resolved against it (`//evil.example/users` must stay a path);
 * absolute-form targets (`http://host/users`, from proxies) are taken as they are. Null when
 * the target is not a URL at all. A plain origin-form target (most of them) is split, not
 * parsed: {@link PlainUrl} gives what the parser would, and parses only when asked for more.
 */
export function requestUrl(target: string | undefined): URL | null {
  if (target !== undefined) {
    const plain = PLAIN_TARGET.exec(target)
    if (plain && !DOT_SEGMENT.test(plain[1]!))
      return new PlainUrl(plain[1]!, plain[2] ?? '') as unknown as URL
  }
  try {
    if (!target) return new URL(`${LOCAL_ORIGIN}/`)
    return target.startsWith('/') ? new URL(`${LOCAL_ORIGIN}${target}`) : new URL(target)
  } catch {
    return null
  }
}

/**
 * A plain request target's URL, as the parser would give it (test/server/node-request.test.ts
 * compares the two on random targets): the path and the query as they are, the search
 * parameters parsed on first use.
 * Parsing a URL costs a few percent of a small request's time on the lean path.
 */
class PlainUrl {
  #params: URLSearchParams | undefined
  /** `query`: `?` and what follows it, or nothing. */
  constructor(
    readonly pathname: string,
    readonly query: string,
  ) {}

  get search(): string {
    return this.query === '?' ? '' : this.query
  }
  get searchParams(): URLSearchParams {
    return (this.#params ??= new URLSearchParams(this.search))
  }
  get href(): string {
    return `${LOCAL_ORIGIN}${this.pathname}${this.query}`
  }
  get origin(): string {
    return LOCAL_ORIGIN
  }
  get protocol(): string {
    return 'http:'
  }
  get host(): string {
    return LOCAL_HOST
  }
  get hostname(): string {
    return LOCAL_HOST
  }
  get port(): string {
    return ''
  }
  get hash(): string {
    return ''
  }
  get username(): string {
    return ''
  }
  get password(): string {
    return ''
  }
  toString(): string {
    return this.href
  }
  toJSON(): string {
    return this.href
  }
}

/**
 * Whether a request target's path has a percent-encoded `.` or `..` segment (`%2e%2e`, `.%2e`).
 * The URL parser resolves those like written-out ones, so `/__sandbox/overrides/%2e%2e` (an id
 * a client did not mean as a step up) would reach `/__sandbox/`. Written-out ones are resolved,
 * as `fetch` resolves them before MSW sees a request.
 */
export function hasDotSegment(target: string): boolean {
  const end = target.search(/[?#]/)
  const path = end < 0 ? target : target.slice(0, end)
  return /(?:^|\/)(?:%2e\.?|\.%2e|%2e%2e)(?:\/|$)/i.test(path)
}

/**
 * Adapts Node's `IncomingMessage` to the pipeline's request without building Fetch API
 * objects (the costliest part of serving MSW handlers over HTTP). The body is read only when
 * an operation asks for it, and only up to its limit.
 */
export function fromNodeRequest(
  req: IncomingMessage,
  url: URL,
  budget: BodyBudget = unlimited,
  requestId?: string,
): ApiRequest {
  return new NodeRequest(req, url, budget, requestId)
}

/** One object per request, its methods on the prototype (this runs on every request). */
class NodeRequest implements ApiRequest {
  readonly method: string
  constructor(
    readonly req: IncomingMessage,
    readonly url: URL,
    readonly budget: BodyBudget,
    readonly requestId: string | undefined,
  ) {
    this.method = req.method ?? 'GET'
  }

  header(name: string): string | null {
    const value = this.req.headers[name]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }

  headers() {
    return this.req.headers
  }

  readBody(limit: number) {
    return readNodeBody(this.req, limit, this.budget)
  }

  willWait() {
    sendContinue(this.req)
  }
}

/**
 * How many bytes of request bodies the server holds in memory at once (C3): past it, a body
 * is refused 429 / 42900 instead of read, so many big uploads at once cannot exhaust the heap.
 */
export class BodyBudget {
  #held = 0
  /**
   * `stalledMs`: a counted answer whose client takes none of it for this long is cut
   * ({@link holds}).
   */
  constructor(
    readonly bytes: number,
    readonly stalledMs = timeouts.stalledMs,
  ) {}
  /** Takes `size` bytes if they fit; `first`: also if nothing else is held (one answer larger than all). */
  take(size: number, first = false): boolean {
    if (this.#held + size > this.bytes && !(first && this.#held === 0)) return false
    this.#held += size
    return true
  }
  release(size: number): void {
    this.#held -= size
  }

  /**
   * Counts an answer of `bytes` ({@link HELD_FROM} or more) until its response closes: sent, or
   * its client gone; false when it does not fit (C3). An answer waits in memory for as long as
   * its client does not read it: 100 clients asking for the `big` scenario's 8.5 MB data
   * document and reading nothing ran a 512 MB server out of memory. One answer larger than the
   * whole budget (the data document at 400,000 users, 70 MB, on a 512 MB heap) is still sent
   * when it is the only one. A client that takes none of it for {@link stalledMs} is cut: it
   * would hold those bytes for as long as it stays, and one such answer larger than the budget
   * would have every other large answer refused. So is one that takes it slower than
   * {@link SLOWEST_READ} on average (past {@link stalledMs} more): a byte now and then kept
   * the bytes held for as long as it liked.
   */
  holds(bytes: number, res: ServerResponse): boolean {
    if (bytes < HELD_FROM) return true
    if (!this.take(bytes, true)) return false
    const deadline = setTimeout(() => res.destroy(), this.stalledMs + (bytes / SLOWEST_READ) * 1000)
    deadline.unref()
    res.once('close', () => {
      clearTimeout(deadline)
      this.release(bytes)
    })
    // The socket's inactivity: no byte taken (nor sent) for that long. Node sets the socket's
    // own timeouts again once the answer is done (keep-alive).
    res.setTimeout(this.stalledMs, () => res.destroy())
    return true
  }
}

/** Answers this large are counted while they are sent (below it, one cannot matter). */
export const HELD_FROM = 64 * 1024

/** 429 / 42900 for an answer that does not fit the bytes held in memory at once (C3). */
export function answersBusy(): ApiError {
  return ApiError.of('rateLimited', 'too many large answers are being sent at once; retry shortly')
}

const unlimited = new BodyBudget(Number.POSITIVE_INFINITY)

/** Requests that sent `Expect: 100-continue` and were not yet asked for their body: their answer. */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>()

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): `100 Continue` is sent when the body is first
 * read, not at once as Node does. An answer made without the body (401, 403, 404, 405, 413
 * from `Content-Length`) goes out before the client sent it, and Node closes its connection
 * (an answer without 100 Continue to such a request keeps no connection alive): the client
 * never uploads the body, and one it sends anyway is never read as a request.
 */
export function continueWhenRead(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.set(req, res)
}

function sendContinue(req: IncomingMessage): void {
  const res = awaitingContinue.get(req)
  if (!res) return
  awaitingContinue.delete(req)
  if (!res.headersSent) res.writeContinue()
}

function readNodeBody(
  req: IncomingMessage,
  limit: number,
  budget: BodyBudget,
): Promise<Uint8Array | 'too-large' | 'busy'> {
  sendContinue(req)
  // Gone before its body was asked for (while the request waited for a scenario being made): no
  // event would come, and the read would wait for good.
  if (req.destroyed || req.errored)
    return Promise.reject(new Error('the client closed the connection before its body was read'))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const cleanup = () => {
      if (done) return
      done = true
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
      budget.release(size)
    }
    const onData = (chunk: Buffer) => {
      if (!budget.take(chunk.length)) {
        cleanup()
        discardBody(req)
        resolve('busy')
        return
      }
      size += chunk.length
      if (size > limit) {
        cleanup()
        // The rest of a refused (413) body is dropped while the sandbox answers.
        discardBody(req)
        resolve('too-large')
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    // A client that goes away mid-body: the bytes held so far go back to the budget.
    const onClose = () => {
      if (done || req.complete) return
      cleanup()
      reject(new Error('the client closed the connection mid-body'))
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}
