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
  /** The JSON text of `body`, as sent. */
  bodyText?: string
  bytes?: number
  overrideId?: number
  nearMiss?: NearMiss
  /** Forwarded to the proxy target, or passed through to the network (CONTRACT C4). */
  proxied?: boolean
  /** The raw body, once read (by an override's body condition, then by the operation). */
  raw?: Promise<Uint8Array | 'too-large' | 'busy'>
}

/**
 * A request's `Seen` with every field present from the start: the steps that fill it in later
 * (the body, an override's id) then store into the object as it is, instead of growing it.
 */
export function seenOf(
  at: number,
  started: number,
  pathname: string,
  path: string,
  requestId: string,
): Seen {
  return {
    at,
    started,
    pathname,
    path,
    requestId,
    body: undefined,
    bodyText: undefined,
    bytes: undefined,
    overrideId: undefined,
    nearMiss: undefined,
    proxied: undefined,
    raw: undefined,
  }
}

/** The request's body, read once: an override's body condition and the operation share it. */
export function bodyOf(request: ApiRequest, seen: Seen): Pick<ApiRequest, 'header' | 'readBody'> {
  return new SharedBody(request, seen)
}

/** One object per read, its methods on the prototype (this runs on every write). */
class SharedBody implements Pick<ApiRequest, 'header' | 'readBody'> {
  constructor(
    readonly request: ApiRequest,
    readonly seen: Seen,
  ) {}

  header(name: string): string | null {
    return this.request.header(name)
  }

  readBody(limit: number): Promise<Uint8Array | 'too-large' | 'busy'> {
    return (this.seen.raw ??= this.request.readBody(limit))
  }
}
