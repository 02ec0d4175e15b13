import type { NextFunction, Request, Response } from 'express'

/** One line per request: method, path, status (or "dropped"), milliseconds. */
export function requestLog(write: (line: string) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now()
    const path = req.originalUrl.split('?')[0]
    res.once('close', () => {
      const ms = (performance.now() - started).toFixed(1)
      const status = res.locals.dropped
        ? 'dropped'
        : res.writableFinished
          ? String(res.statusCode)
          : 'aborted'
      write(`${req.method} ${path} ${status} ${ms}ms`)
    })
    next()
  }
}
