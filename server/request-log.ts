import type { IncomingMessage, ServerResponse } from 'node:http'

/** One line per request: method, path, status (or "dropped"), milliseconds. */
export function requestLog(write: (line: string) => void) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const started = performance.now()
    res.once('close', () => {
      const path = (req.url ?? '/').split('?')[0]
      const ms = (performance.now() - started).toFixed(1)
      const status = dropped.has(res)
        ? 'dropped'
        : res.writableFinished
          ? String(res.statusCode)
          : 'aborted'
      write(`${req.method} ${path} ${status} ${ms}ms`)
    })
    next()
  }
}

/** Responses whose connection the sandbox dropped on purpose (fault injection, drop or 1xx). */
export const dropped = new WeakSet<ServerResponse>()
