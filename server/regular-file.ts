import { constants, createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { open } from 'node:fs/promises'

/** What {@link readRegularFile} throws for a path that is not a regular file (its `code`: `ENOTFILE`). */
export class NotAFile extends Error {
  readonly code = 'ENOTFILE'
  constructor(readonly path: string) {
    super(`${path} is not a regular file`)
  }
}

/** `open`'s flag that refuses a symbolic link at the path itself (ELOOP); 0 where there is none. */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

/**
 * A file's text, read only from a regular file: a FIFO would hold the read for good (and a
 * thread of libuv's pool with it: a few such reads and every file operation of the process
 * waits), and `/dev/zero` would never end. Opened without blocking, then looked at through the
 * open handle, so a file swapped for a FIFO between a look and the read is caught too. Throws
 * {@link NotAFile} for anything else; other errors as `fs` throws them (`ENOENT`, `EACCES`…).
 * With `follow` false, a symbolic link at `path` is refused too (ELOOP).
 */
export async function readRegularFile(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
  follow = true,
): Promise<string> {
  const handle = await open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : NO_FOLLOW),
  )
  try {
    const { size, isFile } = await handle.stat().then((stats) => ({
      size: stats.size,
      isFile: stats.isFile(),
    }))
    if (!isFile) throw new NotAFile(path)
    if (size > maxBytes) throw new TooLargeFile(path, size)
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/** What {@link readRegularFile} throws for a file larger than it was told to read (`EFBIG`). */
export class TooLargeFile extends Error {
  readonly code = 'EFBIG'
  constructor(
    readonly path: string,
    readonly size: number,
  ) {
    super(`${path} is ${size} bytes, more than it may read`)
  }
}

/**
 * Copies a regular file to `to` (a new file), streamed: not held in memory whole (a data file
 * edited to 255 MB), and, as {@link readRegularFile}, only from a regular file.
 */
export async function copyRegularFile(from: string, to: string): Promise<void> {
  const handle = await open(from, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw new NotAFile(from)
    await pipeline(
      handle.createReadStream({ autoClose: false }),
      createWriteStream(to, { flags: 'wx' }),
    )
  } finally {
    await handle.close()
  }
}
