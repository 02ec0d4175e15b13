/** What MSW does with a request no handler claims. */
export type UnhandledStrategy = 'bypass' | 'warn' | 'error'

/**
 * MSW's option for unclaimed requests, under both its names: msw 2 reads
 * `onUnhandledRequest`, msw 3 `onUnhandledFrame`, and each ignores the other.
 */
export function unhandledOptions(strategy: UnhandledStrategy): {
  onUnhandledRequest: UnhandledStrategy
  onUnhandledFrame: UnhandledStrategy
} {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy }
}
