import { closeSync, constants, fsyncSync, ftruncateSync, openSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { open, rm } from 'node:fs/promises'
import { NO_FOLLOW } from '../regular-file.js'
import { DataFileError } from './errors.js'

/**
 * The log and the reserve are never opened through a symbolic link at their path: the log is
 * opened without following one (ELOOP), and both are made anew exclusively (after removing what
 * is there), so a link planted there cannot aim the sandbox's writes (or the reserve's zeros)
 * at another file. The data file itself may be a link (C3); these files are the sandbox's own.
 */
const { O_WRONLY, O_RDWR, O_CREAT, O_APPEND } = constants
const APPEND = O_WRONLY | O_CREAT | O_APPEND | NO_FOLLOW

/** Removes what is at `path` (never what a link there names) and opens a new file there. */
async function openAnew(path: string, mode: number): Promise<FileHandle> {
  await rm(path, { force: true })
  return open(path, 'wx', mode)
}

/**
 * Bytes kept in reserve beside the data file: freed when the disk is full, so the small log
 * lines of deletes (which shrink the data) still fit and the disk can be cleaned up through the
 * API.
 */
const RESERVE_BYTES = 32 * 1024

/**
 * The write-ahead log beside the data file (`.<name>.log`, lines of data-file/log-lines.ts):
 * every write's changes are appended and fsynced before the write is acknowledged. A reserve
 * file beside it keeps room for deletes on a full disk.
 */
export class WriteLog {
  #handle: FileHandle | null = null
  /** Its size: where the next line goes, and where a failed append is cut back to. */
  bytes = 0
  /** Changes in the log that the data file does not hold yet. */
  changes = 0
  #reserve = false

  constructor(
    readonly logPath: string,
    readonly reservePath: string,
    /** The data file's mode (the log and the reserve take it). */
    readonly mode: () => number,
    /** Takes the lock again (the log's folder was removed and made again). */
    readonly relock: () => Promise<void>,
  ) {}

  /** Opens the log to append (creating it), and makes the reserve. */
  async open(): Promise<void> {
    this.#handle = await open(this.logPath, APPEND, this.mode())
    this.bytes = (await this.#handle.stat()).size
  }

  /**
   * Appends a line and fsyncs it; on failure, takes back whatever part got written. A line of
   * changes that only shrink the data (deletes) may spend the reserve on a full disk.
   */
  async append(line: string, shrinking: boolean): Promise<void> {
    const log = this.#handle
    if (!log) throw new DataFileError('the log is closed')
    const bytes = Buffer.from(line)
    const position = this.bytes
    for (let attempt = 0; ; attempt++) {
      try {
        // Opened to append: the line goes at the end, where the log was cut back to on failure.
        // A full disk may take part of a line without an error: the rest is written until it
        // is all in, or the error comes.
        for (let written = 0; written < bytes.byteLength;) {
          const { bytesWritten } = await log.write(bytes, written)
          if (bytesWritten === 0)
            throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
          written += bytesWritten
        }
        await log.datasync()
        // A log removed by hand takes writes into nowhere: that is not durable.
        if ((await log.stat()).nlink === 0) {
          throw Object.assign(new Error('the log file was removed'), { code: 'ENOENT' })
        }
        this.bytes += bytes.byteLength
        return
      } catch (error) {
        await log.truncate(position).catch(() => undefined)
        const code = (error as NodeJS.ErrnoException).code
        // A full disk: the reserve makes room for deletes, so the data can be cleaned up.
        if (
          attempt === 0 &&
          shrinking &&
          (code === 'ENOSPC' || code === 'EDQUOT') &&
          this.#reserve
        ) {
          await rm(this.reservePath, { force: true }).catch(() => undefined)
          this.#reserve = false
          continue
        }
        throw error
      }
    }
  }

  /** After the file took everything: the log starts over (a dead one is opened anew). */
  async empty(): Promise<void> {
    this.changes = 0
    const log = this.#handle
    if (!log) return
    if ((await log.stat().catch(() => null))?.nlink === 0) {
      await log.close().catch(() => undefined)
      this.#handle = await openAnew(this.logPath, this.mode())
      // The log was removed: with its folder, perhaps, and the lock and the reserve with it.
      await this.relock()
      this.#reserve = false
    } else {
      await log.truncate(0)
      await log.datasync()
    }
    this.bytes = 0
    if (!this.#reserve) await this.makeReserve()
  }

  /** Empties the log synchronously (an exit that cannot wait, once the file holds everything). */
  emptySync(): void {
    const log = openSync(this.logPath, O_RDWR | NO_FOLLOW)
    try {
      ftruncateSync(log, 0)
      fsyncSync(log)
    } finally {
      closeSync(log)
    }
  }

  /** Keeps the reserve's bytes on disk (never failing: without a reserve, deletes wait like the rest). */
  async makeReserve(): Promise<void> {
    try {
      const handle = await openAnew(this.reservePath, this.mode())
      try {
        await handle.writeFile(Buffer.alloc(RESERVE_BYTES))
        await handle.sync()
      } finally {
        await handle.close()
      }
      this.#reserve = true
    } catch {
      await rm(this.reservePath, { force: true }).catch(() => undefined)
    }
  }

  /** Closes the log's file, leaving it as it is (a start that failed keeps a crash's log). */
  async closeHandle(): Promise<void> {
    await this.#handle?.close().catch(() => undefined)
    this.#handle = null
  }

  /** Closes the log; removes it when the file holds everything, and the reserve either way. */
  async close(): Promise<void> {
    await this.closeHandle()
    if (this.changes === 0) await rm(this.logPath, { force: true }).catch(() => undefined)
    await rm(this.reservePath, { force: true }).catch(() => undefined)
  }
}

interface Waiter {
  /** The store's change number this commit waits for. */
  target: number
  resolve: () => void
  reject: (error: Error) => void
}

/**
 * Group commit: requests that arrive while a round of writing runs share the next round, and
 * each is answered once the changes it made are durable (or refused, when they could not be).
 */
export class GroupCommit {
  /** The newest change number known to be durable. */
  durable = 0
  #waiters: Waiter[] = []
  #running: Promise<void> | null = null

  constructor(
    /** One round: makes every change so far durable, then calls {@link settle}. */
    readonly round: () => Promise<void>,
    /** Whether another round is due once one ends (changes came meanwhile, a fold is due). */
    readonly due: () => boolean,
    /** What to do once rounds stop (schedule the fold). */
    readonly paused: () => void,
  ) {}

  /** Resolves once change `target` is durable; rejects when it could not be made so. */
  commit(target: number): Promise<void> {
    if (target <= this.durable) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.#waiters.push({ target, resolve, reject })
      this.kick()
    })
  }

  /** Starts a round unless one runs (it starts the next itself). */
  kick(): void {
    this.#running ??= this.round().finally(() => {
      this.#running = null
      if (this.due() || this.#waiters.length > 0) this.kick()
      else this.paused()
    })
  }

  /** Resolves once no round runs (a round may start the next one before it ends). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running
  }

  /** Resolves the commits that are durable now; with an error, rejects every one still waiting. */
  settle(error: Error | null): void {
    const waiting = this.#waiters
    this.#waiters = []
    for (const waiter of waiting) {
      if (error) waiter.reject(error)
      else if (waiter.target <= this.durable) waiter.resolve()
      else this.#waiters.push(waiter)
    }
  }
}
