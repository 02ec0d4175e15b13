import type { IncomingMessage } from 'node:http'
import type { ApiRequest } from '../handlers/exchange.js'
import { concat } from '../handlers/exchange.js'

const LOCAL_ORIGIN = 'http://sandbox.local'

/**
 * The URL of a request target. Origin-form targets (`/users?page=2`, also `//x`) are appended
 * to a local origin, never resolved against it (`//evil.example/users` must stay a path);
 * absolute-form targets (`http://host/users`, from proxies) are taken as they are. Null when
 * the target is not a URL at all.
 */
export function requestUrl(target: string | undefined): URL | null {
  try {
    if (!target) return new URL(`${LOCAL_ORIGIN}/`)
    return target.startsWith('/') ? new URL(`${LOCAL_ORIGIN}${target}`) : new URL(target)
  } catch {
    return null
  }
}

/**
 * Adapts Node's `IncomingMessage` to the pipeline's request without building Fetch API
 * objects (the costliest part of serving MSW handlers over HTTP). The body is read only when
 * an operation asks for it, and only up to its limit.
 */
export function fromNodeRequest(req: IncomingMessage, url: URL): ApiRequest {
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    url,
    header(name) {
      const value = req.headers[name]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
    readBody: (limit) => readNodeBody(req, limit),
  }
}

function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        discardRest(req)
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
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}

/** How much more of a too-large body is read and dropped before the connection is cut. */
const DISCARD_LIMIT = 16 * 1024 * 1024

/**
 * Reads and drops the rest of a body the sandbox refused (413), while it answers, so the
 * keep-alive connection stays usable; an endless body gets its connection cut.
 */
function discardRest(req: IncomingMessage): void {
  let discarded = 0
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > DISCARD_LIMIT) req.socket.destroy()
  })
}
