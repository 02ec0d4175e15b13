import { rmSync } from 'node:fs'
import { open, rm, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { flag } from '../../sandbox/option-table.js'
import { readRegularFile } from '../regular-file.js'
import { cannot, DataFileError } from './errors.js'

/** Lock files this process holds (two servers in one process must not share a file either). */
const heldLocks = new Set<string>()

/** The most a lock file is read of (it holds `{"pid":<n>}`). */
const LOCK_BYTES = 1024

/**
 * One server per data file (CONTRACT C3): a lock file beside the real file naming its pid,
 * made with an exclusive create; a dead owner's lock is stale and taken over.
 */
export class FileLock {
  #locked = false

  constructor(
    /** The data file as given (for messages). */
    readonly path: string,
    /** The lock file (`.<name>.lock` beside the real file). */
    readonly lockPath: string,
    readonly print: (line: string) => void,
  ) {}

  /** Takes the lock, or throws a {@link DataFileError} naming who holds it. */
  async lock(): Promise<void> {
    if (heldLocks.has(this.lockPath)) {
      throw new DataFileError(
        `data file ${this.path} is in use by another shop-sandbox (pid ${process.pid}); stop it or pick another ${flag('data')} file`,
      )
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(this.lockPath, 'wx')
        await handle.writeFile(`${JSON.stringify({ pid: process.pid })}\n`)
        await handle.close()
        this.#locked = true
        heldLocks.add(this.lockPath)
        return
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') {
          // A folder that exists but takes no new files (/proc, say) answers ENOENT too.
          const folder = await stat(dirname(this.lockPath)).catch(() => null)
          throw new DataFileError(
            folder?.isDirectory()
              ? `cannot use data file ${this.path}: its folder takes no new files (the lock and the log go beside it); pick a ${flag('data')} path in a folder you may write`
              : `cannot create data file ${this.path}: its folder does not exist; create it or pick another ${flag('data')} path`,
          )
        }
        if (code !== 'EEXIST') throw new DataFileError(cannot('lock', this.path, error))
        const owner = await this.owner()
        if (owner !== null && alive(owner)) {
          throw new DataFileError(
            `data file ${this.path} is in use by another shop-sandbox (pid ${owner}); stop it or pick another ${flag('data')} file`,
          )
        }
        await rm(this.lockPath, { force: true })
      }
    }
    throw new DataFileError(`cannot lock data file ${this.path}: another process keeps taking it`)
  }

  /**
   * Takes the lock again when it is gone (its folder was removed and made again while the
   * server ran), so that a second server still refuses the file; says so when another one took
   * the file meanwhile.
   */
  async relock(): Promise<void> {
    const owner = await this.owner()
    if (owner === process.pid) return
    if (owner !== null && alive(owner)) {
      this.print(
        `shop-sandbox: another shop-sandbox (pid ${owner}) took ${this.path} while its folder was gone; stop one of them`,
      )
      return
    }
    try {
      // Made anew and exclusively, as at start: never written through a link planted there.
      await rm(this.lockPath, { force: true })
      await writeFile(this.lockPath, `${JSON.stringify({ pid: process.pid })}\n`, {
        mode: 0o644,
        flag: 'wx',
      })
    } catch {
      // The folder is gone again: the next recovery tries again.
    }
  }

  /** The pid the lock file names, or null. */
  async owner(): Promise<number | null> {
    try {
      // A lock is a short regular file this code wrote: anything else (a link planted there to
      // /dev/zero, a FIFO, a huge file) names no owner, and is never followed or read whole.
      const text = await readRegularFile(this.lockPath, LOCK_BYTES, false)
      const { pid } = JSON.parse(text) as { pid?: unknown }
      return typeof pid === 'number' ? pid : null
    } catch {
      return null
    }
  }

  /** Releases the lock (synchronously: an exit that cannot wait calls it too). */
  unlockSync(): void {
    if (!this.#locked) return
    this.#locked = false
    heldLocks.delete(this.lockPath)
    // A lock that cannot be removed (a folder gone read-only) is stale once this process ends:
    // the next start takes it over. Nothing to add to the exit's last line.
    try {
      rmSync(this.lockPath, { force: true })
    } catch {
      // See above.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
