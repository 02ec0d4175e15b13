import type { ApiRequest } from '../../contract/exchange.js'
import type { NearMiss } from '../../state/overrides.js'

/** What the steps gather about a request on its way, for the journal and for each other. */
export interface Seen {
  /** When it came (the sandbox's clock) and when it started (for its duration). */
  at: number
  started: number
  pathname: string
  /** The path under the base path. */
  path: string
  requestId: string
  body?: unknown
  bytes?: number
  overrideId?: number
  nearMiss?: NearMiss
  /** Forwarded to the proxy target, or passed through to the network (CONTRACT C4). */
  proxied?: boolean
  /** The raw body, once read (by an override's body condition, then by the operation). */
  raw?: Promise<Uint8Array | 'too-large' | 'busy'>
}

/** The request's body, read once: an override's body condition and the operation share it. */
export function bodyOf(request: ApiRequest, seen: Seen): Pick<ApiRequest, 'header' | 'readBody'> {
  return {
    header: (name) => request.header(name),
    readBody: (limit) => (seen.raw ??= request.readBody(limit)),
  }
}
