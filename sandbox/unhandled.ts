import { nearName } from './options.js'

/** What MSW does with a request no handler claims, as MSW names it. */
const strategies = ['bypass', 'warn', 'error'] as const
export type UnhandledStrategy = (typeof strategies)[number]

/** The option's two names: msw 2 reads the first, msw 3 the second. */
const names = ['onUnhandledRequest', 'onUnhandledFrame'] as const

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

/**
 * The strategy `options` give under either name (msw 3's first), or undefined; a TypeError
 * naming the option when a value is none of MSW's (a callback of MSW's own is passed on as is).
 * With `only`, a key that is neither name is refused too (`listen({ onUnhandled: 'error' })`
 * would otherwise leave unclaimed requests bypassed, silently).
 */
export function unhandledStrategy(
  options: Partial<Record<(typeof names)[number], unknown>>,
  where: string,
  only = false,
): UnhandledStrategy | undefined {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${where}: options must be an object, got ${String(options)}`)
  if (only)
    for (const key of Object.keys(options)) {
      if ((names as readonly string[]).includes(key)) continue
      const near = nearName(key, names)
      throw new TypeError(
        `${where}: ${key.slice(0, 60)} is not an option${near ? `; did you mean ${near}?` : ` (${names.join(', ')})`}`,
      )
    }
  for (const name of names) {
    const value = options[name]
    if (value === undefined || typeof value === 'function') continue
    if (!(strategies as readonly unknown[]).includes(value))
      throw new TypeError(
        `${where}: ${name} must be ${strategies.map((s) => `'${s}'`).join(', ')} or a function, got ${JSON.stringify(value)?.slice(0, 60) ?? String(value)}`,
      )
  }
  return (options.onUnhandledFrame ?? options.onUnhandledRequest) as UnhandledStrategy | undefined
}
