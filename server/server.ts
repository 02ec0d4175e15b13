import type { Server } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { ApiError } from '../handlers/api-error.js'
import { failure, JSON_CONTENT_TYPE } from '../handlers/envelope.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { createSandbox } from '../sandbox/create-sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { createApp } from './app.js'
import { corsHandler } from './cors.js'
import { createFastPath } from './fast-path.js'
import { DataFile } from './persistence.js'
import { requestLog } from './request-log.js'

/** Options of {@link createSandboxServer}: the sandbox's, plus where and how to listen. */
export interface SandboxServerOptions extends SandboxOptions {
  /** Port to listen on; 0 picks a free one (default 4010). */
  port?: number
  /** Address to bind (default 127.0.0.1, reachable from this machine only). */
  host?: string
  /** Resource path prefix, e.g. `/api` (default none). Overrides `baseUrl`. */
  basePath?: string
  /** Write a one-line log per request with this function (default: no log). */
  log?: (line: string) => void
  /** Keep the data in this JSON file: loaded at start, written after every change. */
  data?: string
  /** Allowed CORS origins (default: any). */
  corsOrigin?: string[]
  /** Override some of the {@link timeouts}. */
  timeouts?: Partial<ServerTimeouts>
  /**
   * How the API is served over HTTP: `fast` (default) feeds the handlers' pipeline straight
   * from Node's request; `msw` runs the MSW handlers through @mswjs/http-middleware in express
   * (slower, see the README's performance notes; same answers).
   */
  transport?: 'fast' | 'msw'
}

/**
 * Answers what Node's HTTP parser refused before any handler saw it: a request that took too
 * long (408), or bytes that are not HTTP (400, with the contract's envelope).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy()
    return
  }
  const id = `X-Request-Id: ${crypto.randomUUID()}\r\n`
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end(
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n${id}Content-Length: 0\r\n\r\n`,
    )
    return
  }
  const answer = failure(ApiError.of('invalidParameter', 'malformed HTTP request'))
  const body = answer.body ?? ''
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nConnection: close\r\n${id}Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/** A started sandbox server. */
export interface SandboxServer {
  /** Where it listens, e.g. `http://127.0.0.1:4010` (plus the base path, if any). */
  readonly url: string
  readonly port: number
  readonly sandbox: Sandbox
  readonly server: Server
  /** Whether the data came from the `data` file or was seeded (and the file created). */
  readonly dataFile: 'loaded' | 'created' | null
  /** Stops accepting connections, lets requests in flight finish (up to 5 s), flushes the data file. */
  close(): Promise<void>
}

/** Timeouts, so slow or idle clients cannot hold the server (milliseconds). */
export interface ServerTimeouts {
  /** The request headers must arrive within this (also closes connections that send nothing). */
  headersMs: number
  /** The whole request, body included, must arrive within this. */
  requestMs: number
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number
  /** On close, requests still running after this are cut. */
  shutdownMs: number
}

/** The default timeouts. */
export const timeouts: Readonly<ServerTimeouts> = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  shutdownMs: 5_000,
}

/**
 * Starts the sandbox as a real HTTP server: the handlers' pipeline on Node's HTTP server (or,
 * with `transport: 'msw'`, the MSW handlers through express 5 and @mswjs/http-middleware).
 *
 * @example
 * const server = await createSandboxServer({ port: 0 })
 * const res = await fetch(`${server.url}/users`, { headers: { authorization: 'Bearer sandbox-admin-token' } })
 * await server.close()
 */
export async function createSandboxServer(
  options: SandboxServerOptions = {},
): Promise<SandboxServer> {
  const {
    port = 4010,
    host = '127.0.0.1',
    basePath,
    log,
    data,
    corsOrigin,
    transport = 'fast',
    timeouts: timeoutOverrides,
    ...sandboxOptions
  } = options
  const limits = { ...timeouts, ...timeoutOverrides }
  const sandbox = createSandbox({
    ...sandboxOptions,
    ...(basePath === undefined ? {} : { baseUrl: basePath }),
  })
  const dataFile = data ? new DataFile(data, sandbox.db) : null
  const outcome = dataFile ? await dataFile.open(sandboxOptions.onProgress) : null
  const cors = corsHandler(corsOrigin)
  const logger = log ? requestLog(log) : undefined
  const app = createApp(sandbox, {
    cors,
    log: logger,
    msw: transport === 'msw',
    onUnexpectedError: sandbox.options.onUnexpectedError,
  })
  const fast = transport === 'fast' ? createFastPath(sandbox, { cors, log: logger }) : null
  const server = createServer(
    {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      keepAliveTimeout: limits.keepAliveMs,
      // How often Node checks the two timeouts above (default 30 s: too coarse for short limits).
      connectionsCheckingInterval: Math.min(limits.headersMs, limits.requestMs) / 4,
    },
    (req, res) => {
      if (!fast?.(req, res)) app(req, res)
    },
  )
  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket),
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
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
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        const force = setTimeout(() => server.closeAllConnections(), limits.shutdownMs)
        await closed
        clearTimeout(force)
        await dataFile?.close()
      })()
      return closing
    },
  }
}
