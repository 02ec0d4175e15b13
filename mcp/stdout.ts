/**
 * Stdout is the MCP protocol's (`shop-sandbox mcp`): what the user's modules (`--api`,
 * `--resources`, `--scenarios`) print goes to stderr, through `console` or `process.stdout.write`
 * alike; only the protocol's own writes ({@link speak}) reach stdout. A module's
 * `process.stdout.write('…')` put a line that is no JSON-RPC message in the client's stream.
 */

let speaking = false

/** From now on, what this process writes to stdout goes to stderr, but for {@link speak}'s. */
export function keepStdoutForTheProtocol(): void {
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error
  const stdout = process.stdout
  const own = stdout.write
  stdout.write = function (this: typeof stdout, ...args: Parameters<typeof own>) {
    return speaking
      ? own.apply(this, args)
      : (process.stderr.write as (...given: Parameters<typeof own>) => boolean)(...args)
  } as typeof own
}

/** Runs `write`, a write of the protocol's to stdout: it reaches stdout. */
export function speak<T>(write: () => T): T {
  speaking = true
  try {
    return write()
  } finally {
    speaking = false
  }
}
