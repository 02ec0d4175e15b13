import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer, maxHeaderSize, STATUS_CODES } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { ApiError } from '../contract/api-error.js'
import { OptionsError } from '../contract/option-spec.js'
import { failure, JSON_CONTENT_TYPE } from '../contract/envelope.js'
import { bodiesHeldBytes } from '../http/body.js'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { createApiSandbox, setUnmatched } from '../sandbox/create-sandbox.js'
import type { ScopeOptions } from '../sandbox/option-table.js'
import { optionTable, validScope } from '../sandbox/option-table.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { heapDefaults } from '../state/limits.js'
import type { FrontServer } from './front/index.js'
import { frontOf } from './front/index.js'
import { requestIdOf } from './front/request-id.js'
import type { AllowedHosts } from './guard.js'
import { hostGuard, namedHost, originPolicy } from './guard.js'
import { BodyBudget, continueWhenRead } from './node-request.js'
import { closeWith } from './respond.js'
import { DataFile } from './data-file/index.js'
import { proxyTo } from './proxy.js'
import { Recorder } from './record.js'
import { requestLog } from './request-log.js'
import { timeouts } from './timeouts.js'
import { bodilessExchange, unknownMethodRequest } from './unknown-method.js'

export type { ServerTimeouts } from './timeouts.js'
export { timeouts } from './timeouts.js'

/**
 * Options of a sandbox server: the sandbox's, plus where and how to listen (the option table's
 * `server` scope: `port`, `host`, `basePath`, `data`, `dataFormat`, `corsOrigin`,
 * `allowedHosts`, `transport`, `inFlightBodyBytes`, `timeouts`, `log`).
 */
export type SandboxServerOptions<A extends ApiDefinition = ApiDefinition> = SandboxOptions<A> &
  ScopeOptions<'server'>

/**
 * Answers what never reaches a request listener, on the raw socket, and closes it: a request
 * that took too long (408), bytes that are not HTTP (400), a `CONNECT` to a host (404: the sandbox is
 * no proxy). Every answer but the bare 408 is the contract's envelope.
 */
function answerRaw(
  socket: Duplex,
  answer: 'timeout' | ApiError,
  /** The request answered, if its head was read: its `X-Request-Id` is echoed (B6). */
  request: IncomingMessage | null = null,
): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  // The headers every answer carries (CONTRACT B6; Vary as the front sets it).
  const ours = `X-Request-Id: ${requestIdOf(request)}\r\nVary: Origin\r\n`
  if (answer === 'timeout') {
    return closeWith(
      socket,
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n${ours}Content-Length: 0\r\n\r\n`,
    )
  }
  const body = failure(answer).body ?? ''
  closeWith(
    socket,
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nConnection: close\r\n${ours}Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/**
 * Runs `then` once `socket` is free: a request pipelined after one still being answered (bytes
 * Node's parser refused, a `CONNECT`) is answered after that answer, on the same connection.
 * Assigning it a response at once threw (ERR_HTTP_SOCKET_ASSIGNED) and took the process down; a
 * raw answer cut the one before it. A socket closed meanwhile is left to close.
 */
function whenFree(socket: Duplex, then: () => void): void {
  const current = (socket as { _httpMessage?: (ServerResponse & { _last?: boolean }) | null })
    ._httpMessage
  if (!current || current.writableFinished) return then()
  const free = () => {
    socket.off('close', gone)
    // Before Node's own listener: a client that half-closed after sending both had that answer
    // marked the connection's last, and Node would end the socket after it. This one closes it.
    current._last = false
    // After Node's own listener has detached the finished response from the socket.
    // A response pipelined behind it may be attached next: that one is waited for too.
    setImmediate(() => (socket.writable ? whenFree(socket, then) : socket.destroy()))
  }
  const gone = () => current.off('finish', free)
  current.prependOnceListener('finish', free)
  socket.once('close', gone)
}

/**
 * Requests pipelined on a connection (sent before the one ahead of them was answered) are run
 * one after the other, each once the one ahead has been answered (Node then gives its answer
 * the socket): RFC 9112 §9.3.2 lets a server run only safe ones side by side, and a `GET` sent
 * behind a `POST` was answered from the data before it. Node writes the answers in order either
 * way; a connection without pipelining (every browser's, curl's) never waits here.
 */
function oneAtATime(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (res.socket) listener(req, res)
    else
      res.once('socket', (socket: Socket) => {
        // Its client went away meanwhile: nobody would read the answer, and a write would be made.
        if (socket.destroyed || !socket.writable) return void req.destroy()
        if (timedOut.has(req)) answerRaw(socket, 'timeout', req)
        else listener(req, res)
      })
  }
}

/** Pipelined requests that timed out while they waited for their turn (their 408 is sent then). */
const timedOut = new WeakSet<IncomingMessage>()

/** Whether `socket` is answering a request before `request` (pipelined behind it). */
function answeringBefore(socket: Duplex, request: IncomingMessage): boolean {
  const current = (socket as { _httpMessage?: ServerResponse | null })._httpMessage
  return current != null && !current.writableFinished && current.req !== request
}

/** The request Node's parser is inside on `socket` (its head read, not all its body), if any. */
function stillReading(socket: Duplex): IncomingMessage | null {
  const incoming = (socket as { parser?: { incoming?: IncomingMessage | null } }).parser?.incoming
  return incoming != null && !incoming.complete ? incoming : null
}

/** A started sandbox server (of an API whose resources are `D`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a server of an API not known by type
export interface SandboxServer<D extends readonly AnyResourceDefinition[] = any> {
  /** Where it listens, e.g. `http://127.0.0.1:4010` (plus the base path, if any). */
  readonly url: string
  readonly port: number
  readonly sandbox: Sandbox<D>
  readonly server: Server
  /** Whether the data came from the `data` file or was seeded (and the file created). */
  readonly dataFile: 'loaded' | 'created' | null
  /**
   * Stops accepting connections, lets requests in flight finish (up to 5 s), flushes the data
   * file; rejects with a `DataFileError` when changes could not be saved.
   */
  close(): Promise<void>
  /** Writes the data file now, synchronously, and releases it (an exit that cannot wait); false when that failed. */
  saveNow(): boolean
}

/**
 * Starts a sandbox of an API (`options.api`) as a real HTTP server: the handlers' pipeline fed
 * straight from Node's request (or, with `transport: 'msw'`, the MSW handlers through msw's
 * `getResponse`, loaded only then). The package's `createSandboxServer` is this with the Shop
 * API as the default.
 *
 * @example
 * const server = await createApiSandboxServer({ api: myApi, port: 0 })
 * const res = await fetch(`${server.url}/users`, { headers: { authorization: 'Bearer sandbox-admin-token' } })
 * await server.close()
 */
export async function createApiSandboxServer(
  options: SandboxServerOptions & { api: ApiDefinition },
): Promise<SandboxServer> {
  const given = validScope(options, 'server', 'server')
  const {
    port = optionTable.port.default,
    host = optionTable.host.default as string,
    basePath,
    log,
    data,
    dataFormat = optionTable.dataFormat.default,
    corsOrigin,
    allowedHosts = [],
    inFlightBodyBytes,
    transport = optionTable.transport.default,
    timeouts: timeoutOverrides,
    proxy,
    proxyTimeout = optionTable.proxyTimeout.default,
    record,
  } = given as ScopeOptions<'server'> & { allowedHosts?: AllowedHosts; basePath?: string }
  const sandboxOptions = Object.fromEntries(
    Object.entries(options).filter(([name]) => !isServerOption(name)),
  ) as SandboxOptions & { api: ApiDefinition }
  const limits = { ...timeouts, ...timeoutOverrides }
  if (sandboxOptions.passthrough)
    throw new OptionsError(
      'server',
      'passthrough: is for MSW handlers (the browser, tests); the server forwards to the real API with proxy: <url>',
    )
  if (record !== undefined && proxy === undefined)
    throw new OptionsError(
      'server',
      'record: records what the proxy forwards; give proxy: <url> too',
    )
  const sandbox = createApiSandbox({
    ...heapDefaults('server'),
    ...sandboxOptions,
    ...(basePath === undefined || basePath === '' ? {} : { baseUrl: basePath }),
  }) as unknown as Sandbox
  // Bytes of bodies held in memory at once (C3): request bodies, the proxy target's answers, and
  // large answers not yet sent (server/front/pipeline.ts).
  const bodies = new BodyBudget(inFlightBodyBytes ?? bodiesHeldBytes(), limits.stalledMs)
  const recorder =
    record === undefined ? null : await Recorder.open(record, sandbox.options.limits.overrides)
  if (proxy !== undefined)
    setUnmatched(
      sandbox,
      proxyTo({
        target: proxy,
        timeoutMs: proxyTimeout as number,
        maxBytes: sandbox.options.limits.maxDocumentBytes,
        recorder,
        budget: bodies,
      }),
    )
  const dataFile = data
    ? new DataFile(data, sandbox.db, sandbox.options.catalog, { pretty: dataFormat === 'pretty' })
    : null
  const outcome = dataFile ? await dataFile.open(sandboxOptions.onProgress) : null
  if (dataFile) sandbox.instance().persistence = dataFile
  const listening: FrontServer = {
    sandbox,
    bodies,
    origins: originPolicy(corsOrigin),
    hosts: hostGuard(allowedHosts, host),
    named: namedHost(allowedHosts, host),
    allowedHosts,
    log: log ? requestLog(log) : undefined,
    msw:
      transport === 'msw'
        ? await (
            await import('./msw-transport.js')
          ).mswFrame(sandbox, { bodies, draining: () => listening.draining })
        : null,
    draining: false,
  }
  const listener = oneAtATime(frontOf(listening))
  const server = createServer(
    {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      keepAliveTimeout: limits.keepAliveMs,
      // How often Node checks the two timeouts above (default 30 s: too coarse for short limits).
      connectionsCheckingInterval: Math.min(limits.headersMs, limits.requestMs) / 4,
      // A header sent twice reads as Fetch reads it (`a, b`), not as its first value: the same
      // request gets the same answer on both transports and in MSW (two Authorization headers
      // are no valid token; two Content-Types no JSON).
      joinDuplicateHeaders: true,
      // An HTTP/1.1 request without Host gets the sandbox's answer (with its request id), not
      // Node's bare 400: no browser sends one (the Host check guards browsers), curl -H 'Host:' does.
      requireHostHeader: false,
    },
    listener,
  )
  // A client that half-closes after its request (`nc -N`, some scripts) still gets the answer,
  // however long it takes (a proxied or delayed one): Node's own switch for it (false, Node
  // ends the socket at the client's FIN, and an answer not yet written is lost).
  ;(server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
  // Sockets whose request of an unknown method is being answered: the parser's later errors on
  // them (the bytes after that request) are not answered again.
  const answering = new WeakSet<Duplex>()
  const answerOnce = (
    socket: Duplex,
    { req, res }: { req: IncomingMessage; res: ServerResponse },
  ) => {
    answering.add(socket)
    res.once('finish', () => {
      res.detachSocket(socket as Socket)
      closeWith(socket, '')
    })
    listener(req, res)
  }
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answering.has(socket)) return
    if (error.code === 'ECONNRESET') return socket.destroy()
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const late = stillReading(socket)
      // Pipelined behind an answer still being made, its body is not read while it waits (past
      // a buffer's worth, nor received): it is not run, and its 408 goes in its turn, after the
      // answers before it (oneAtATime), not over them.
      if (late === null || !answeringBefore(socket, late)) return answerRaw(socket, 'timeout', late)
      answering.add(socket)
      timedOut.add(late)
      return
    }
    const unknownMethod = unknownMethodRequest(error, socket)
    const malformed = ApiError.of(
      'invalidParameter',
      error.code === 'HPE_HEADER_OVERFLOW'
        ? `request line and headers larger than ${maxHeaderSize % 1024 === 0 ? `${maxHeaderSize / 1024} KiB` : `${maxHeaderSize} bytes`} (a query or a header too long)`
        : 'malformed HTTP request',
    )
    // Inside a request still being read (its body broken, a client gone mid-request): at once,
    // as that request can never be done. After whole requests (bytes that are not HTTP behind
    // them, a request of an unknown method): once they are answered, in order; a write
    // acknowledged 201 was told 400 before.
    const reading = unknownMethod ? null : stillReading(socket)
    if (reading) return answerRaw(socket, malformed, reading)
    answering.add(socket)
    whenFree(socket, () =>
      unknownMethod
        ? answerOnce(socket, bodilessExchange(unknownMethod, socket))
        : answerRaw(socket, malformed),
    )
  })
  // An `Expect` other than 100-continue: served like any request (RFC 9110 §10.1.1 lets a server
  // ignore an expectation it does not know), not Node's bare 417 without the request id.
  server.on('checkExpectation', listener)
  // `Expect: 100-continue`: told to send the body when it is read (node-request.ts), so a
  // request refused before (401, 413 from Content-Length) never uploads it. Through MSW, whose
  // handlers take the body as a stream from the start, at once, as Node does.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (listening.msw) res.writeContinue()
    else continueWhenRead(req, res)
    listener(req, res)
  })
  // CONNECT to a path (`CONNECT /users/1`) is a method its route does not take: 405 with
  // `Allow`, as any other (B2). To a host (`CONNECT example.com:443`) it asks for a tunnel,
  // and the sandbox is no proxy: refused by the Host check first, as every request is, else 404.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    answering.add(socket)
    whenFree(socket, () => {
      if (req.url?.startsWith('/')) return answerOnce(socket, bodilessExchange(req, socket))
      answerRaw(
        socket,
        listening.hosts(req.headers.host) ??
          ApiError.of('notFound', `no route for CONNECT ${req.url?.slice(0, 100)}`),
        req,
      )
    })
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    // Not listening: the data file is released for the next try.
    await dataFile?.close().catch(() => undefined)
    throw error
  }
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${shownHost}:${address.port}${sandbox.options.basePath}`,
    port: address.port,
    sandbox,
    server,
    dataFile: outcome,
    close() {
      closing ??= (async () => {
        // Node keeps serving new requests on a busy keep-alive connection after close(): from
        // now on every answer says `Connection: close`, and a connection is closed once idle.
        listening.draining = true
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        const idle = setInterval(() => server.closeIdleConnections(), 50)
        const force = setTimeout(() => server.closeAllConnections(), limits.shutdownMs)
        await closed
        clearInterval(idle)
        clearTimeout(force)
        await recorder?.flush()
        await dataFile?.close()
      })()
      return closing
    },
    saveNow: () => dataFile?.saveSync() ?? true,
  }
}

/** Whether an option name is one of the server's (given or not). */
function isServerOption(name: string): boolean {
  return (optionTable as Record<string, { scope: string }>)[name]?.scope === 'server'
}
