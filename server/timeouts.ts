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
  /**
   * A large answer whose client takes none of it for this long is cut (its connection closed):
   * it would hold its bytes of the server's budget for as long as the client stays (C3). So is
   * one not taken this long past what {@link SLOWEST_READ} would take.
   */
  stalledMs: number
}

/**
 * Bytes a second a client takes a counted answer at, at the least, on average: 8.5 MB (the
 * `big` scenario's data document) in some two minutes.
 */
export const SLOWEST_READ = 64 * 1024

/** The default timeouts. */
export const timeouts: Readonly<ServerTimeouts> = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  shutdownMs: 5_000,
  stalledMs: 30_000,
}

/** What each timeout does when it runs out, where the option's help says more than its name. */
const outcomes: Partial<Record<keyof ServerTimeouts, string>> = {
  requestMs: 'else 408',
  stalledMs: `a large answer its client takes nothing of, or under ${SLOWEST_READ / 1024} KB/s on average`,
}

/** The `timeouts` option's help: each with its default, from {@link timeouts}. */
export const timeoutsHelp = `Milliseconds: ${Object.entries(timeouts)
  .map(([name, ms]) => {
    const outcome = outcomes[name as keyof ServerTimeouts]
    return `${name} (${ms}${outcome ? `, ${outcome}` : ''})`
  })
  .join(', ')}`
