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
