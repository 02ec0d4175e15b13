/**
 * The request and response the sandbox's pipeline works on: the least a transport must
 * provide, so the same pipeline serves MSW's handlers (browser and tests) and the Node server.
 */
export interface ApiRequest {
  /**
   * The method as sent, case and all (RFC 9110: `patch` is not `PATCH`, so it gets 405). Fetch
   * writes DELETE, GET, HEAD, OPTIONS, POST and PUT in capitals whatever case it was given (as a
   * browser then sends them); any other method keeps its case.
   */
  readonly method: string
  readonly url: URL
  /** A request header by lower-case name, or null. */
  header(name: string): string | null
  /**
   * Every request header, lower-case names to values (repeated ones joined with `, `): what the
   * journal keeps. Optional for hand-made requests (the journal then shows none).
   */
  headers?(): Readonly<Record<string, string | readonly string[] | undefined>>
  /**
   * Its `X-Request-Id`, when the transport has chosen it already (the Node server, which logs
   * it); otherwise the pipeline takes the client's or makes one.
   */
  readonly requestId?: string
  /**
   * Called before the answer waits (a delay): a transport that holds back `100 Continue` until
   * the body is read sends it now, so a client waiting for it does not time out meanwhile.
   */
  willWait?(): void
  /**
   * The body up to `limit` bytes: `too-large` past it, `busy` when the server is already holding
   * as many request bodies in memory as it allows.
   */
  readBody(limit: number): Promise<Uint8Array | 'too-large' | 'busy'>
}

export interface ApiResponse {
  status: number
  headers: Record<string, string>
  /** JSON text, or null for no body (204, HEAD). */
  body: string | null
  /**
   * A body that is not UTF-8 text, as bytes (a proxied image): sent instead of `body`, which is
   * then null. Only a proxy target's answers have one.
   */
  bytes?: Uint8Array
  /**
   * Every `Set-Cookie` line of the answer, each its own header (they cannot be joined into one
   * value like other headers). Only a proxy target's answers have them; `headers` then holds none.
   */
  setCookies?: readonly string[]
  /**
   * MSW handlers only: the request goes on to the network untouched (MSW's `passthrough()`),
   * for a request under the base path no route and no override answers (`passthrough` option).
   */
  passthrough?: boolean
  /** The business code of the envelope (0 for success, also for 204); null when dropped. */
  code: number | null
  /**
   * Set when the sandbox drops the connection instead of answering (fault injection), status 0;
   * or after an interim answer, an override's 1xx `status`: the Node server sends it (HTTP/1.1)
   * and then closes the connection; through MSW, where a Fetch `Response` cannot be a 1xx, it is
   * a network error as a drop is.
   */
  drop?: boolean
  /**
   * Set when a header value holds characters past ASCII (an override's `café`): HTTP carries
   * them as Latin-1 bytes, so the transport must not write the headers as UTF-8.
   */
  latin1Headers?: boolean
  /**
   * What a success envelope's body was made from (`successText(data)` gives it again): stored
   * records are immutable and other data is built for this answer and never changed, so the
   * journal keeps this, not the text, and renders the text only when someone reads it.
   */
  data?: unknown
}

/** Whether a status is an interim one (1xx): no final answer, no content (RFC 9110 §15.2). */
export function isInterim(status: number): boolean {
  return status >= 100 && status < 200
}

/** Whether a header value holds characters past ASCII, so it goes out as Latin-1 (`latin1Headers`). */
export function pastAscii(value: string): boolean {
  return /[^\x00-\x7e]/.test(value)
}

/**
 * Whether a value is a promise (a thenable). Not `instanceof Promise`: under a test runner's
 * sandboxed globals (Jest's environments) an async function's promise need not be the global
 * `Promise`.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

/** Whether an answer is still on its way (a promise) rather than ready. */
export function isPending(
  answer: ApiResponse | PromiseLike<ApiResponse>,
): answer is Promise<ApiResponse> {
  return isThenable(answer)
}

/** Adapts a Fetch API `Request` (what MSW hands its handlers). */
export function fromFetchRequest(request: Request): ApiRequest {
  return {
    method: request.method,
    url: new URL(request.url),
    header: (name) => request.headers.get(name),
    headers: () => Object.fromEntries(request.headers),
    readBody: (limit) => readStream(request.body, limit),
  }
}

/** Reads a byte stream up to `limit` bytes, cancelling it as soon as it is longer. */
export async function readStream(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | 'too-large'> {
  if (!stream) return new Uint8Array(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      // Not awaited: cancelling one branch of a tee'd body (MSW clones requests) settles
      // only when the other branch is cancelled too, which may be never.
      reader.cancel().catch(() => undefined)
      return 'too-large'
    }
    chunks.push(value)
  }
  return concat(chunks, size)
}

export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
