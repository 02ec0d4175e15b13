import { fixedAccounts } from '../db/seed.js'
import { fixedTokens } from '../handlers/auth.js'
import { DataFileError } from '../server/persistence.js'
import type { SandboxServerOptions } from '../server/server.js'
import { createSandboxServer } from '../server/server.js'
import { startupProgress } from './progress.js'

const loopback = new Set(['127.0.0.1', 'localhost', '::1'])

/** Starts the server, prints where it is and how to call it, and stops cleanly on SIGINT/SIGTERM. */
export async function serve(
  options: SandboxServerOptions & { quiet: boolean },
  version: string,
): Promise<void> {
  const { quiet, ...serverOptions } = options
  if (!loopback.has(options.host ?? '127.0.0.1')) {
    console.warn(
      `shop-sandbox: warning: listening on ${options.host}, so other machines can reach the sandbox and its fixed tokens`,
    )
  }
  let server: Awaited<ReturnType<typeof createSandboxServer>>
  const progress = startupProgress()
  try {
    server = await createSandboxServer({
      ...serverOptions,
      onProgress: progress.report,
      ...(quiet ? {} : { log: (line: string) => console.log(line) }),
    })
    progress.stop()
  } catch (error) {
    progress.stop()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      console.error(
        `shop-sandbox: port ${options.port} is in use; pass --port 0 for a free one, or another port`,
      )
    } else if (
      error instanceof DataFileError ||
      error instanceof RangeError ||
      error instanceof TypeError
    ) {
      console.error(`shop-sandbox: ${error.message}`)
    } else {
      console.error('shop-sandbox: could not start:', error)
    }
    process.exitCode = 1
    return
  }
  const { users, products, orders } = server.sandbox.db
  const { seed } = server.sandbox.options
  const example = `curl -H 'Authorization: Bearer ${fixedTokens[0].token}' ${server.url}/users`
  const source = server.dataFile === 'loaded' ? `from ${options.data}` : `seed ${seed}`
  console.log(
    [
      `shop-sandbox ${version} listening on ${server.url}`,
      `  data:         ${users.size} users, ${products.size} products, ${orders.size} orders (${source})`,
      `  admin token:  ${fixedTokens[0].token}  (user 1, ${fixedAccounts[0].email})`,
      `  member token: ${fixedTokens[1].token}  (user 2, ${fixedAccounts[1].email})`,
      `  try:          ${example}`,
    ].join('\n'),
  )
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130)
    stopping = true
    if (!quiet) console.log(`shop-sandbox: ${signal}, shutting down`)
    void server.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
