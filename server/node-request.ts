import type { IncomingMessage } from 'node:http'
import type { ApiRequest } from '../handlers/exchange.js'
import { concat } from '../handlers/exchange.js'
import { discardBody } from './respond.js'

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
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}
