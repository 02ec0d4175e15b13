import { constants } from 'node:fs'
import { open } from 'node:fs/promises'

/** What {@link readRegularFile} throws for a path that is not a regular file (its `code`: `ENOTFILE`). */
export class NotAFile extends Error {
  readonly code = 'ENOTFILE'
  constructor(readonly path: string) {
    super(`${path} is not a regular file`)
  }
}

/**
 * A file's text, read only from a regular file: a FIFO would hold the read for good (and a
 * thread of libuv's pool with it: a few such reads and every file operation of the process
 * waits), and `/dev/zero` would never end. Opened without blocking, then looked at through the
 * open handle, so a file swapped for a FIFO between a look and the read is caught too. Throws
 * {@link NotAFile} for anything else; other errors as `fs` throws them (`ENOENT`, `EACCES`…).
 */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw new NotAFile(path)
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
