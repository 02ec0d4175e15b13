import { randomBytes } from 'node:crypto'
import type { Stats } from 'node:fs'
import {
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  unwatchFile,
  watchFile,
  writeSync,
} from 'node:fs'
import { lstat, open, readdir, readFile, readlink, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { checkSnapshot } from '../resources/document.js'
import type { ProgressReporter } from '../db/progress.js'
import type { Store } from '../db/store.js'
import type { Catalog } from '../resources/catalog.js'
import type { Persistence, PersistenceStatus } from '../state/instance.js'

/**
 * The durability window: a change is written at most this long after it was acknowledged
 * (sooner for small data: {@link DEBOUNCE_MS}, or four times the last write's duration).
 */
export const WRITE_WINDOW_MS = 1000
/** How long a change waits before it is written, so a burst of changes makes one write. */
const DEBOUNCE_MS = 100
/** Retries of a failed write wait this long, doubling up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 8000
/** How often the file is checked for hand edits. */
const WATCH_MS = 300

/** Lock files this process holds (two servers in one process must not share a file either). */
const heldLocks = new Set<string>()

/** A data file that could not be used; the file is left as it was. */
export class DataFileError extends Error {
  override readonly name = 'DataFileError'
}

/** `ENOSPC: no space left on device` from a Node error, without the path. */
function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  const text = String(message ?? error).split('\n')[0]!
  const detail = text.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')
  return code ? `${code}: ${detail}` : detail
}

/**
 * Keeps a store in a JSON file (CONTRACT C3): one server per file (a lock file naming its
 * pid; a dead owner's lock is taken over), loaded at start (validated as for
 * `PUT /__sandbox/db`, id sequences included) or created from the seed, then every change
 * written back atomically (a temp file renamed over the target, the folder fsynced) within
 * {@link WRITE_WINDOW_MS}. A write that fails is retried with backoff, logged, shown in
 * `GET /__sandbox`, and until it succeeds API writes are refused (503). A symlinked file
 * stays a symlink. Valid hand edits are loaded while running; invalid ones are reported.
 */
export class DataFile implements Persistence {
  /** The file written: the path itself, or the file a symlink at the path points to. */
  #target: string
  #lockPath: string
  #locked = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #writing: Promise<void> = Promise.resolve()
  #dirty = false
  #lastWriteMs = 0
  #retryMs = FIRST_RETRY_MS
  #error: string | null = null
  #lastSavedAt: string | null = null
  /** The file as this server last wrote or read it, to tell hand edits from its own writes. */
  #known: { size: number; mtimeMs: number; ino: number } | null = null
  #loading = false
  #unsubscribe: (() => void) | undefined
  #watching = false

  constructor(
    readonly path: string,
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {
    this.#target = resolve(path)
    this.#lockPath = this.#lockFor(this.#target)
  }

  get status(): PersistenceStatus {
    return {
      ok: this.#error === null,
      error: this.#error,
      unsavedChanges: this.#dirty || this.#timer !== undefined,
      lastSavedAt: this.#lastSavedAt,
    }
  }

  /** While the file cannot be written, why API writes are refused; null when they may go on. */
  writeRefusal(): string | null {
    return this.#error === null ? null : `data file cannot be written: ${this.#error}`
  }

  /** Locks and loads the file into the store, or writes the store to a new file. */
  async open(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    this.#target = await this.#resolveTarget()
    this.#lockPath = this.#lockFor(this.#target)
    await this.#lock()
    try {
      await this.#removeStaleTemps()
      let text: string | undefined
      try {
        text = await readFile(this.#target, 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new DataFileError(`cannot read data file ${this.path}: ${reasonOf(error)}`)
      }
      let outcome: 'loaded' | 'created' = 'created'
      if (text === undefined) {
        try {
          await this.#write()
        } catch (error) {
          throw new DataFileError(`cannot create data file ${this.path}: ${reasonOf(error)}`)
        }
      } else {
        const problem = this.#load(text, onProgress)
        if (problem) throw new DataFileError(`data file ${this.path} ${problem}`)
        this.#known = await this.#stat()
        outcome = 'loaded'
      }
      this.#unsubscribe = this.store.subscribe(() => {
        if (!this.#loading) this.#schedule()
      })
      watchFile(this.#target, { interval: WATCH_MS, persistent: false }, (current) =>
        this.#onFileChange(current),
      )
      this.#watching = true
      return outcome
    } catch (error) {
      this.#unlockSync()
      throw error
    }
  }

  /**
   * Writes pending changes and releases the file. Throws a {@link DataFileError} when
   * changes could not be saved (the caller exits non-zero).
   */
  async close(): Promise<void> {
    this.#unsubscribe?.()
    this.#stopWatching()
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#dirty) await this.#enqueue()
    await this.#writing
    const unsaved = this.#error
    this.#unlockSync()
    if (unsaved !== null)
      throw new DataFileError(`changes were not saved to ${this.path}: ${unsaved}`)
  }

  /**
   * Writes the data now, synchronously (a second Ctrl-C: exit at once, but nothing
   * acknowledged lost), and releases the file. Returns whether it was saved.
   */
  saveSync(): boolean {
    this.#unsubscribe?.()
    this.#stopWatching()
    clearTimeout(this.#timer)
    this.#timer = undefined
    const temp = this.#tempPath()
    try {
      const fd = openSync(temp, 'w')
      try {
        writeSync(fd, this.#serialize())
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temp, this.#target)
      this.#dirty = false
      this.#error = null
      return true
    } catch (error) {
      rmSync(temp, { force: true })
      this.#error = reasonOf(error)
      return false
    } finally {
      this.#unlockSync()
    }
  }

  async #resolveTarget(): Promise<string> {
    const absolute = resolve(this.path)
    try {
      if ((await lstat(absolute)).isSymbolicLink())
        return resolve(dirname(absolute), await readlink(absolute))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DataFileError(`cannot read data file ${this.path}: ${reasonOf(error)}`)
    }
    return absolute
  }

  #lockFor(target: string): string {
    return join(dirname(target), `.${basename(target)}.lock`)
  }

  /** Takes the lock file (exclusive create); a lock whose pid is gone is stale and taken over. */
  async #lock(): Promise<void> {
    if (heldLocks.has(this.#lockPath)) {
      throw new DataFileError(
        `data file ${this.path} is in use by another shop-sandbox (pid ${process.pid}); stop it or pick another --data file`,
      )
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(this.#lockPath, 'wx')
        await handle.writeFile(`${JSON.stringify({ pid: process.pid })}\n`)
        await handle.close()
        this.#locked = true
        heldLocks.add(this.#lockPath)
        return
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT')
          throw new DataFileError(
            `cannot create data file ${this.path}: its folder does not exist; create it or pick another --data path`,
          )
        if (code !== 'EEXIST')
          throw new DataFileError(`cannot lock data file ${this.path}: ${reasonOf(error)}`)
        const owner = await this.#lockOwner()
        if (owner !== null && alive(owner)) {
          throw new DataFileError(
            `data file ${this.path} is in use by another shop-sandbox (pid ${owner}); stop it or pick another --data file`,
          )
        }
        await rm(this.#lockPath, { force: true })
      }
    }
    throw new DataFileError(`cannot lock data file ${this.path}: another process keeps taking it`)
  }

  async #lockOwner(): Promise<number | null> {
    try {
      const { pid } = JSON.parse(await readFile(this.#lockPath, 'utf8')) as { pid?: unknown }
      return typeof pid === 'number' ? pid : null
    } catch {
      return null
    }
  }

  #unlockSync(): void {
    if (!this.#locked) return
    this.#locked = false
    heldLocks.delete(this.#lockPath)
    rmSync(this.#lockPath, { force: true })
  }

  /** Temp files a crashed run left beside the target (`.<name>.<random>.tmp`). */
  async #removeStaleTemps(): Promise<void> {
    const prefix = `.${basename(this.#target)}.`
    const folder = dirname(this.#target)
    for (const name of await readdir(folder).catch(() => [])) {
      if (name.startsWith(prefix) && name.endsWith('.tmp'))
        await rm(join(folder, name), { force: true })
    }
  }

  /** Loads a text into the store; returns what is wrong with it instead, if anything. */
  #load(text: string, onProgress?: ProgressReporter): string | null {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      return `is not valid JSON: ${(error as Error).message}`
    }
    const check = checkSnapshot(this.catalog, parsed)
    if (!check.ok) return `is invalid: ${check.problem}`
    this.#loading = true
    try {
      this.store.restore(check.document, onProgress)
    } finally {
      this.#loading = false
    }
    return null
  }

  /** A hand edit (the file changed, and not by this server): loaded when valid, reported when not. */
  #onFileChange(current: Stats): void {
    if (current.nlink === 0 || this.#isKnown(current)) return
    void this.#writing.then(async () => {
      const now = await this.#stat()
      if (now === null || this.#isKnown(now)) return
      this.#known = now
      const text = await readFile(this.#target, 'utf8').catch(() => null)
      if (text === null) return
      if (this.#dirty || this.#timer !== undefined) {
        this.log(
          `shop-sandbox: ${this.path} was edited on disk while the sandbox had unsaved changes: the sandbox's data wins and overwrites it`,
        )
        return
      }
      const problem = this.#load(text)
      this.log(
        problem
          ? `shop-sandbox: ${this.path} was edited on disk but ${problem}; ignored (the next change overwrites it)`
          : `shop-sandbox: ${this.path} was edited on disk: loaded`,
      )
    })
  }

  #isKnown(file: { size: number; mtimeMs: number; ino: number }): boolean {
    const known = this.#known
    return (
      known !== null &&
      known.size === file.size &&
      known.mtimeMs === file.mtimeMs &&
      known.ino === file.ino
    )
  }

  async #stat(): Promise<{ size: number; mtimeMs: number; ino: number } | null> {
    try {
      const { size, mtimeMs, ino } = await stat(this.#target)
      return { size, mtimeMs, ino }
    } catch {
      return null
    }
  }

  #stopWatching(): void {
    if (!this.#watching) return
    this.#watching = false
    unwatchFile(this.#target)
  }

  /**
   * Writes at most once per interval: the first change starts the wait, later ones ride
   * along, so a steady stream of changes still reaches the disk within the window.
   */
  #schedule(): void {
    this.#dirty = true
    if (this.#timer !== undefined) return
    const wait = Math.min(WRITE_WINDOW_MS / 2, Math.max(DEBOUNCE_MS, 4 * this.#lastWriteMs))
    this.#timer = setTimeout(() => void this.#enqueue(), wait)
  }

  #enqueue(): Promise<void> {
    this.#timer = undefined
    this.#dirty = false
    this.#writing = this.#writing
      .then(() => this.#write())
      .then(
        () => {
          if (this.#error !== null) this.log(`shop-sandbox: ${this.path} is written again`)
          this.#error = null
          this.#retryMs = FIRST_RETRY_MS
        },
        (error: unknown) => {
          const reason = reasonOf(error)
          if (reason !== this.#error)
            this.log(
              `shop-sandbox: cannot write ${this.path}: ${reason}; API writes are refused (503) until it can be written, retrying`,
            )
          this.#error = reason
          this.#dirty = true
          if (this.#timer === undefined && this.#unsubscribe) {
            this.#timer = setTimeout(() => void this.#enqueue(), this.#retryMs)
            this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2)
          }
        },
      )
    return this.#writing
  }

  #serialize(): string {
    return `${JSON.stringify(this.store.snapshot())}\n`
  }

  #tempPath(): string {
    return join(
      dirname(this.#target),
      `.${basename(this.#target)}.${randomBytes(6).toString('hex')}.tmp`,
    )
  }

  async #write(): Promise<void> {
    const started = performance.now()
    const text = this.#serialize()
    const temp = this.#tempPath()
    try {
      const handle = await open(temp, 'w')
      try {
        await handle.writeFile(text, 'utf8')
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, this.#target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    await syncFolder(dirname(this.#target))
    this.#known = await this.#stat()
    this.#lastSavedAt = new Date().toISOString()
    this.#lastWriteMs = performance.now() - started
  }
}

/** fsync of the folder, so the rename itself survives a power cut. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r').catch(() => null)
  if (!handle) return
  try {
    await handle.sync()
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  } finally {
    await handle.close()
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
