import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestHandler } from 'msw'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import { createHandlers } from '../sandbox/msw-handlers.js'
import { bodiesBusy } from '../http/body.js'
import { failure } from '../contract/envelope.js'
import type { BodyBudget } from './node-request.js'
import { answersBusy } from './node-request.js'
import { discardBody, drop, sendAnswer } from './respond.js'

/** A request listener that answers, or calls `next` for what it does not serve. */
export type Frame = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  next: (error?: unknown) => void,
) => void

/**
 * The `msw` transport: every request becomes a Fetch API `Request` resolved by MSW itself
 * (`getResponse` over the sandbox's handlers), as @mswjs/http-middleware did before msw 3
 * removed the function it called. Loaded only when asked for. A network-error response
 * becomes a connection reset; a body nobody read is drained after the answer.
 */
export async function mswFrame(sandbox: Sandbox, server: ServerSide = {}): Promise<Frame> {
  // The sandbox's handlers without their open CORS: the server's Origin policy frames every answer.
  const handlers = createHandlers(sandbox.claims, sandbox.handle, {
    cors: false,
    onError: sandbox.options.onUnexpectedError,
  })
  return mswFrameOf(handlers, server)
}

/** What the server shares with the transport. */
export interface ServerSide {
  /** Bytes of request bodies held at once (C3): past it, 429 / 42900 instead of reading on. */
  bodies?: BodyBudget
  /** Whether the server is stopping: answers then close their connection. */
  draining?: () => boolean
}

/**
 * Any MSW handlers served from Node's requests through `getResponse`: the sandbox's (above),
 * and in the bench msw alone with one static handler, so the two are served the same way.
 */
export async function mswFrameOf(
  handlers: RequestHandler[],
  { bodies, draining }: ServerSide = {},
): Promise<Frame> {
  const { getResponse } = await import('msw')
  return (req, res, url, next) => {
    const method = req.method ?? 'GET'
    // A method not in capitals (`delete`, `patch`: ones Node's parser leaves to the server):
    // Fetch would make `delete` DELETE, but methods are case-sensitive, so the pipeline answers
    // it as it is (405), as the lean transport does.
    if (method !== method.toUpperCase()) return next()
    const hasBody = method !== 'GET' && method !== 'HEAD'
    // Past the budget, the answer is 429 at once; MSW's handler sees the body cut off, and its
    // answer (later) is not written.
    const busy = () => sendAnswer(req, res, failure(bodiesBusy()))
    const body = hasBody ? bodyStream(req, bodies, busy) : null
    let request: Request
    try {
      const headers = new Headers()
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
      request = new Request(url, {
        method,
        headers,
        ...(body ? { body: body.stream, duplex: 'half' } : {}),
      } as RequestInit)
    } catch {
      // What Fetch cannot carry (a method or header it refuses) goes to the pipeline as it is.
      return next()
    }
    // 'close': after the answer, or when the client went away first (the budget comes back).
    res.once('close', () => {
      if (body) body.release()
      else if (!req.complete) discardBody(req)
    })
    getResponse(handlers, request, { baseUrl: url.origin })
      .then(async (response) => {
        if (res.headersSent) return
        if (!response) return next()
        if (response.type === 'error') return drop(req, res)
        const body = Buffer.from(await response.arrayBuffer())
        if (res.headersSent) return
        // Counted until sent, as on the lean transport (C3); past the budget, 429.
        if (bodies && !bodies.holds(body.byteLength, res))
          return sendAnswer(req, res, failure(answersBusy()))
        if (draining?.()) res.setHeader('connection', 'close')
        response.headers.forEach((value, name) => {
          if (name !== 'set-cookie') res.setHeader(name, value)
        })
        // Each Set-Cookie stays a header of its own (set one by one, the last would win).
        const cookies = response.headers.getSetCookie()
        if (cookies.length > 0) res.setHeader('set-cookie', cookies)
        if (body.byteLength > 0 || response.status === 205)
          res.setHeader('content-length', body.byteLength)
        res.writeHead(response.status)
        res.end(body.byteLength > 0 ? body : undefined)
      })
      .catch(next)
  }
}

/**
 * The request body as a web stream. Unlike `Readable.toWeb`, cancelling it (a handler that
 * stops reading at the body limit) drains the rest instead of destroying the socket, so the
 * answer (413) still reaches the client.
 */
function bodyStream(
  req: IncomingMessage,
  budget: BodyBudget | undefined,
  onBusy: () => void,
): {
  stream: ReadableStream<Uint8Array>
  /** After the answer: whatever is still unread is drained and dropped. */
  release: () => void
} {
  let open = true
  let held = 0
  let reader: ReadableStreamDefaultController<Uint8Array> | null = null
  const release = () => {
    budget?.release(held)
    held = 0
    if (!open) return
    open = false
    if (req.complete) return
    // A handler still reading it (the client went away mid-body) is told, not left waiting.
    reader?.error(new Error('the client closed the connection mid-body'))
    discardBody(req)
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        reader = controller
        req.on('data', (chunk: Buffer) => {
          if (!open) return
          if (budget && !budget.take(chunk.length)) {
            open = false
            controller.error(new Error('too many large request bodies in flight'))
            onBusy()
            discardBody(req)
            return
          }
          held += chunk.length
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) req.pause()
        })
        req.once('end', () => {
          if (open) controller.close()
          open = false
        })
        req.once('error', (error) => {
          if (open) controller.error(error)
          open = false
        })
      },
      pull() {
        req.resume()
      },
      cancel: release,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  )
  return { stream, release }
}
