import type { FSWatcher, Stats } from 'node:fs'
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  renameSync,
  rmSync,
  unwatchFile,
  watch,
  watchFile,
  writeSync,
} from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { copyFile, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { ProgressReporter } from '../db/progress.js'
import type { Snapshot, Store, StoreChange } from '../db/store.js'
import type { Row } from '../db/table.js'
import type { Catalog } from '../resources/catalog.js'
import { checkSnapshot } from '../resources/document.js'
import type { Persistence, PersistenceStatus } from '../state/instance.js'
import { realTarget, syncFolder, tempPathBeside } from './atomic-file.js'
import { logLine, replayLog } from './data-log.js'
import { flag } from '../sandbox/option-table.js'

/**
 * After this long without writes, the log is folded into the data file; at least ten times
 * what the last fold took (a big file takes seconds, and writes wait meanwhile), at most a minute.
 */
const IDLE_MS = 250
const MAX_IDLE_MS = 60_000
/** The log is also folded in once it holds this many bytes, or half the data file's size if more. */
const COMPACT_BYTES = 1024 * 1024
/** A data file that could not be written is tried again after this long, doubling up to the max. */
const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 8000
/** How often the file is polled for hand edits (besides the folder's change events). */
const WATCH_MS = 300
/** A hand edit is read once the file has not changed for this long. */
const SETTLE_MS = 50
/**
 * Bytes kept in reserve beside the data file: freed when the disk is full, so the small log
 * lines of deletes (which shrink the data) still fit and the disk can be cleaned up through the
 * API.
 */
const RESERVE_BYTES = 32 * 1024

/** Lock files this process holds (two servers in one process must not share a file either). */
const heldLocks = new Set<string>()

/** A data file that could not be used or written; the file is left as it was. */
export class DataFileError extends Error {
  override readonly name = 'DataFileError'
}

/** `ENOSPC: no space left on device` from a Node error, without the path. */
function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  const text = String(message ?? error).split('\n')[0]!
  const bare = text.replace(/^[A-Z]+: /, '')
  // `…, open '/the/file'`: what follows the first `, <syscall>` at the end or before a quote.
  const syscall = /, \w+(?: '|$)/.exec(bare)
  const detail = syscall ? bare.slice(0, syscall.index) : bare
  return code ? `${code}: ${detail}` : detail
}

/** How the data file is written. */
export interface DataFileOptions {
  /**
   * Pretty-print the file: 2-space indents, fields in the schema's order, as json-server
   * writes `db.json` (default true); false writes one line.
   */
  pretty?: boolean
  /** Where the file's messages go (default: stderr). */
  log?: (line: string) => void
}

interface Waiter {
  /** The store's change number this commit waits for. */
  target: number
  resolve: () => void
  reject: (error: Error) => void
}

/** What the file was when this server last wrote or read it, to tell hand edits from its own writes. */
type Known = { size: number; mtimeMs: number; ino: number }

/**
 * Keeps the default sandbox's data in a JSON file (CONTRACT C3; issue 30: acknowledged means on
 * disk). One server per file: a lock file beside the real file naming its pid (a dead owner's
 * lock is taken over). Every write request's changes are appended to a log beside the file
 * (`.<name>.log`) and fsynced before the request is answered; requests arriving while one
 * append runs share the next (group commit). When they cannot be made durable, they are undone
 * and their requests get 503 / 50300: memory never holds what the disk lacks. The log is folded
 * into the data file (a temp file renamed over it, the folder fsynced) when writes pause or it
 * grows; a start replays whatever log a crash left. The file is found through symlinks (the
 * lock, the writes and hot reload act on the real file), keeps its mode and owner, and is
 * pretty-printed. Valid hand edits are loaded while nothing is pending; otherwise the sandbox's
 * data wins and the edit is kept beside the file, and the log says so every time.
 */
export class DataFile implements Persistence {
  /** The real file: the path itself, or where its chain of symlinks ends. */
  #target: string
  #locked = false
  #log: FileHandle | null = null
  #logBytes = 0
  /** Changes in the log that the data file does not hold yet. */
  #logChanges = 0
  #fileBytes = 0
  #mode = 0o644
  #owner: { uid: number; gid: number } | null = null
  /** The newest of the store's changes known to be durable. */
  #durable = 0
  #waiters: Waiter[] = []
  #running: Promise<void> | null = null
  #compactDue = false
  #idleTimer: ReturnType<typeof setTimeout> | undefined
  #retryTimer: ReturnType<typeof setTimeout> | undefined
  #retryMs = FIRST_RETRY_MS
  /** Why the last flush could not be made durable (writes are refused 503 until one is). */
  #writeError: string | null = null
  /** Why the data file itself could not be written lately (its changes wait in the log). */
  #fileError: string | null = null
  #lastSavedAt: string | null = null
  /** How long the last whole-file write took. */
  #lastWriteMs = 0
  #known: Known | null = null
  #reserve = false
  /** Lines of a log the last run left, applied at start. */
  #replayed = 0
  /** The file may have been edited by hand: checked at the start of the next flush round. */
  #checkEdit = false
  #watching = false
  #folderWatcher: FSWatcher | null = null
  #unsubscribe: (() => void) | undefined
  #closed = false
  readonly #pretty: boolean
  readonly #print: (line: string) => void

  constructor(
    readonly path: string,
    private readonly store: Store,
    private readonly catalog: Catalog,
    options: DataFileOptions = {},
  ) {
    this.#target = resolve(path)
    this.#pretty = options.pretty ?? true
    this.#print = options.log ?? ((line) => console.error(line))
  }

  get #lockPath() {
    return this.#beside('lock')
  }
  get #logPath() {
    return this.#beside('log')
  }
  get #reservePath() {
    return this.#beside('reserve')
  }
  #beside(kind: string): string {
    return join(dirname(this.#target), `.${basename(this.#target)}.${kind}`)
  }

  get status(): PersistenceStatus {
    return {
      ok: this.#writeError === null,
      error: this.#writeError ?? this.#fileError,
      unsavedChanges: this.#logChanges > 0 || this.store.sequence > this.#durable,
      lastSavedAt: this.#lastSavedAt,
    }
  }

  /** Locks and loads the file (replaying a log a crash left), or writes the store to a new file. */
  async open(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    this.#target = await this.#resolveTarget()
    await this.#lock()
    try {
      await this.#removeStaleTemps()
      const outcome = await this.#load(onProgress)
      this.store.track()
      this.#durable = this.store.sequence
      this.#log = await open(this.#logPath, 'a', this.#mode)
      this.#logBytes = (await this.#log.stat()).size
      if (outcome === 'created') await this.#writeFile(this.store.snapshot())
      else if (this.#logBytes > 0) {
        // What a crash left in the log goes into the file now, or stays in the log (a full
        // disk): either way it is durable, and the start goes on.
        this.#logChanges = this.#replayed
        try {
          await this.#writeFile(this.store.snapshot())
          await this.#emptyLog()
        } catch (error) {
          this.#fileFailed(error)
          // A disk that refused the file now refuses writes too, most likely: `ok` says so until
          // a write is made.
          if (['ENOSPC', 'EDQUOT', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? ''))
            this.#writeError = reasonOf(error)
        }
      }
      await this.#makeReserve()
      this.#unsubscribe = this.store.subscribe(() => {
        // A change outside a request (sandbox.reset(), restore()): written like the others.
        if (this.store.sequence > this.#durable) this.#kick()
      })
      this.#watch()
      return outcome
    } catch (error) {
      await this.#log?.close().catch(() => undefined)
      this.#log = null
      this.#unlockSync()
      if (error instanceof DataFileError) throw error
      throw new DataFileError(`cannot write data file ${this.path}: ${reasonOf(error)}`, {
        cause: error,
      })
    }
  }

  /**
   * Resolves once every change made so far is durable (in the log or the file); rejects with a
   * {@link DataFileError} when it could not be, after undoing them.
   */
  commit(): Promise<void> {
    const target = this.store.sequence
    if (target <= this.#durable) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.#waiters.push({ target, resolve, reject })
      this.#kick()
    })
  }

  /**
   * Folds the log into the file and releases it. Throws a {@link DataFileError} whose message is
   * the one line to end with when the file could not be brought up to date (the caller exits 1).
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#stopWatching()
    this.#unsubscribe?.()
    clearTimeout(this.#idleTimer)
    clearTimeout(this.#retryTimer)
    // A retry that was waiting is made now (a compaction waits while a retry is pending).
    this.#retryTimer = undefined
    await this.#idle()
    // The file as this server last wrote it, or not: removed or edited meanwhile (and not yet
    // looked at), it is checked and written again, so the next start finds what was acknowledged.
    const onDisk = await this.#stat()
    if (onDisk === null || this.#known === null || !same(onDisk, this.#known)) {
      this.#checkEdit = true
      this.#compactDue = true
    }
    // Requests still finishing may change data while the log is folded in: a few rounds, until
    // a round leaves nothing behind (or the disk refuses: then the log keeps it).
    for (
      let round = 0;
      round < 3 &&
      (this.#compactDue || this.#logChanges > 0 || this.store.sequence > this.#durable);
      round++
    ) {
      this.#compactDue = true
      this.#kick()
      await this.#idle()
      if (this.#fileError !== null || this.#writeError !== null) break
    }
    const behind = this.#logChanges
    const lost = this.store.sequence > this.#durable
    await this.#log?.close().catch(() => undefined)
    this.#log = null
    if (behind === 0) await rm(this.#logPath, { force: true }).catch(() => undefined)
    await rm(this.#reservePath, { force: true }).catch(() => undefined)
    this.#unlockSync()
    if (lost)
      throw new DataFileError(
        `changes were not saved to ${this.path}: ${this.#writeError ?? 'the disk refused them'}`,
      )
    if (behind > 0)
      throw new DataFileError(
        `${this.path} is not up to date: ${this.#fileError ?? 'it could not be written'}; its last ${behind} change${behind === 1 ? ' is' : 's are'} kept in ${this.#logPath} and applied at the next start`,
      )
  }

  /**
   * An exit that cannot wait (a second Ctrl-C): everything acknowledged is in the log already;
   * the file is brought up to date synchronously when it can be. Returns whether the file holds
   * everything (false: the log still does).
   */
  saveSync(): boolean {
    this.#closed = true
    this.#stopWatching()
    this.#unsubscribe?.()
    clearTimeout(this.#idleTimer)
    clearTimeout(this.#retryTimer)
    let saved = this.#logChanges === 0
    if (!saved) {
      const temp = this.#tempPath()
      try {
        const fd = openSync(temp, 'wx', this.#mode)
        try {
          writeSync(fd, this.#serialize(this.store.snapshot()))
          fchmodSync(fd, this.#mode)
          fsyncSync(fd)
        } finally {
          closeSync(fd)
        }
        renameSync(temp, this.#target)
        const log = openSync(this.#logPath, 'r+')
        try {
          ftruncateSync(log, 0)
          fsyncSync(log)
        } finally {
          closeSync(log)
        }
        saved = true
      } catch (error) {
        rmSync(temp, { force: true })
        this.#fileError = reasonOf(error)
      }
    }
    this.#unlockSync()
    return saved
  }

  /** The real file behind a chain of symlinks (also when it does not exist yet). */
  async #resolveTarget(): Promise<string> {
    try {
      return await realTarget(this.path)
    } catch (error) {
      throw new DataFileError(this.#cannot('read', error))
    }
  }

  #cannot(verb: string, error: unknown): string {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EROFS')
      return `cannot ${verb} data file ${this.path}: the file system is read-only`
    if (code === 'EACCES' || code === 'EPERM')
      return `cannot ${verb} data file ${this.path}: permission denied; pick a ${flag('data')} path you may write`
    return `cannot ${verb} data file ${this.path}: ${reasonOf(error)}`
  }

  /** Takes the lock file (exclusive create); a lock whose pid is gone is stale and taken over. */
  async #lock(): Promise<void> {
    if (heldLocks.has(this.#lockPath)) {
      throw new DataFileError(
        `data file ${this.path} is in use by another shop-sandbox (pid ${process.pid}); stop it or pick another ${flag('data')} file`,
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
        if (code === 'ENOENT') {
          // A folder that exists but takes no new files (/proc, say) answers ENOENT too.
          const folder = await stat(dirname(this.#target)).catch(() => null)
          throw new DataFileError(
            folder?.isDirectory()
              ? `cannot use data file ${this.path}: its folder takes no new files (the lock and the log go beside it); pick a ${flag('data')} path in a folder you may write`
              : `cannot create data file ${this.path}: its folder does not exist; create it or pick another ${flag('data')} path`,
          )
        }
        if (code !== 'EEXIST') throw new DataFileError(this.#cannot('lock', error))
        const owner = await this.#lockOwner()
        if (owner !== null && alive(owner)) {
          throw new DataFileError(
            `data file ${this.path} is in use by another shop-sandbox (pid ${owner}); stop it or pick another ${flag('data')} file`,
          )
        }
        await rm(this.#lockPath, { force: true })
      }
    }
    throw new DataFileError(`cannot lock data file ${this.path}: another process keeps taking it`)
  }

  /**
   * Takes the lock again when it is gone (its folder was removed and made again while the
   * server ran), so that a second server still refuses the file; says so when another one took
   * the file meanwhile.
   */
  async #relock(): Promise<void> {
    const owner = await this.#lockOwner()
    if (owner === process.pid) return
    if (owner !== null && alive(owner)) {
      this.#print(
        `shop-sandbox: another shop-sandbox (pid ${owner}) took ${this.path} while its folder was gone; stop one of them`,
      )
      return
    }
    try {
      await writeFile(this.#lockPath, `${JSON.stringify({ pid: process.pid })}\n`, { mode: 0o644 })
    } catch {
      // The folder is gone again: the next recovery tries again.
    }
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
    // A lock that cannot be removed (a folder gone read-only) is stale once this process ends:
    // the next start takes it over. Nothing to add to the exit's last line.
    try {
      rmSync(this.#lockPath, { force: true })
    } catch {
      // See above.
    }
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

  /** Resolves once no flush round runs (a round may start the next one before it ends). */
  async #idle(): Promise<void> {
    while (this.#running) await this.#running
  }

  /** Reads the file (and a log a crash left) into the store; `created` when there was no file. */
  async #load(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    let text: string | undefined
    try {
      text = await readFile(this.#target, 'utf8')
      const { mode, uid, gid } = await stat(this.#target)
      this.#mode = mode & 0o7777
      this.#owner = { uid, gid }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DataFileError(this.#cannot('read', error))
    }
    let document: Snapshot | null = null
    if (text !== undefined) {
      const parsed = this.#parse(text, false)
      if (typeof parsed === 'string') throw new DataFileError(`data file ${this.path} ${parsed}`)
      document = parsed
      this.#fileBytes = text.length
    }
    const logText = await readFile(this.#logPath, 'utf8').catch(() => '')
    if (logText !== '') {
      const base = document ?? this.store.snapshot()
      const replayed = replayLog(base, logText, this.catalog.names)
      if ('problem' in replayed)
        throw new DataFileError(
          `the log of data file ${this.path} (${this.#logPath}) is damaged: ${replayed.problem}; move it away to start from the file alone`,
        )
      const check = checkSnapshot(this.catalog, replayed.document)
      if (!check.ok)
        throw new DataFileError(
          `the log of data file ${this.path} (${this.#logPath}) does not apply: ${check.problem}; move it away to start from the file alone`,
        )
      document = check.document as Snapshot
      this.#replayed = Math.max(1, replayed.lines)
      if (replayed.lines > 0)
        this.#print(
          `shop-sandbox: ${this.path}: applied ${replayed.lines} logged write${replayed.lines === 1 ? '' : 's'} the last run had not folded into the file${replayed.tornBytes ? ' (and dropped one cut off mid-write, never acknowledged)' : ''}`,
        )
    }
    if (document) this.store.restore(document, onProgress)
    if (text === undefined) return 'created'
    this.#known = await this.#stat()
    return 'loaded'
  }

  /** A data file's text as a validated snapshot, or what is wrong with it. */
  #parse(text: string, running = true): Snapshot | string {
    let parsed: unknown
    try {
      // An editor's byte order mark is no part of the JSON.
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
    } catch (error) {
      return `is not valid JSON: ${(error as Error).message}`
    }
    const check = checkSnapshot(this.catalog, parsed)
    if (!check.ok) return `is invalid: ${check.problem}`
    const document = check.document as Snapshot
    // An edit without id sequences never lowers those the sandbox has handed out (B1: ids are
    // never reused); at start, a file without them continues after its highest ids.
    if ((document as Partial<Snapshot>).nextIds === undefined && running)
      return { ...(document as object), nextIds: this.store.nextIds() } as Snapshot
    return document
  }

  #kick(): void {
    this.#running ??= this.#flush().finally(() => {
      this.#running = null
      // Changes that arrived after the last round, or a due compaction, get their own.
      if (
        this.store.sequence > this.#durable ||
        (this.#compactDue && !this.#closed) ||
        (this.#checkEdit && !this.#closed) ||
        this.#waiters.length > 0
      )
        this.#kick()
      else this.#afterFlush()
    })
  }

  /** Once writes pause: the log is folded into the file soon. */
  #afterFlush(): void {
    if (this.#closed || this.#logChanges === 0 || this.#retryTimer) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(
      () => {
        this.#idleTimer = undefined
        this.#compactDue = true
        this.#kick()
      },
      Math.min(MAX_IDLE_MS, Math.max(IDLE_MS, 10 * this.#lastWriteMs)),
    )
    this.#idleTimer.unref?.()
  }

  /**
   * One round of the flush loop: takes every change made so far and makes it durable, in the
   * file (when a compaction is due, or the changes replace the data) or else in the log; when
   * neither can be written, undoes them and every change made since, and rejects their waiters.
   */
  async #flush(): Promise<void> {
    if (this.#checkEdit) {
      this.#checkEdit = false
      await this.#handleEdit().catch((error: unknown) =>
        this.#print(`shop-sandbox: cannot read the edit of ${this.path}: ${reasonOf(error)}`),
      )
    }
    const changes = this.store.takeChanges()
    const target = this.store.sequence
    const nextIds = this.store.nextIds()
    const replaces = changes.some(({ change }) => change.kind === 'load')
    const compact =
      replaces ||
      (this.#compactDue && !this.#retryTimer) ||
      this.#logBytes > Math.max(COMPACT_BYTES, this.#fileBytes / 2)
    this.#compactDue = false
    // Taken in the same tick as the changes: exactly the durable data plus these changes.
    const snapshot = compact || replaces ? this.store.snapshot() : null
    let durable = changes.length === 0
    let failure: unknown
    if (snapshot && compact) {
      try {
        await this.#writeFile(snapshot)
        durable = true
        this.#fileSaved()
        await this.#emptyLog()
      } catch (error) {
        failure = error
        this.#fileFailed(error)
      }
    }
    if (!durable) {
      try {
        await this.#append(
          logLine(changes, nextIds, () => snapshot!),
          shrinks(changes),
        )
        this.#logChanges += changes.length
        durable = true
      } catch (error) {
        failure ??= error
        if (!compact) {
          // The log cannot take it: perhaps the file can (a log removed by hand, say).
          try {
            await this.#writeFile(this.store.snapshot())
            durable = true
            this.#fileSaved()
            await this.#emptyLog()
          } catch {
            // Neither: reported below.
          }
        }
      }
    }
    if (durable) {
      this.#durable = Math.max(this.#durable, target)
      if (this.#writeError !== null) this.#print(`shop-sandbox: ${this.path} is written again`)
      this.#writeError = null
      this.#settle(null)
      return
    }
    // Not durable: these changes and every change made since are undone, and refused.
    const later = this.store.takeChanges()
    this.store.undo([...changes, ...later])
    this.#durable = this.store.sequence
    const reason = reasonOf(failure)
    if (reason !== this.#writeError)
      this.#print(
        `shop-sandbox: cannot write ${this.path}: ${reason}; writes are refused (503) and undone until it can be written`,
      )
    this.#writeError = reason
    this.#settle(new DataFileError(`data file cannot be written: ${reason}`))
  }

  /** Resolves the commits that are durable now; with an error, rejects every one still waiting. */
  #settle(error: Error | null): void {
    const waiting = this.#waiters
    this.#waiters = []
    for (const waiter of waiting) {
      if (error) waiter.reject(error)
      else if (waiter.target <= this.#durable) waiter.resolve()
      else this.#waiters.push(waiter)
    }
  }

  #fileSaved(): void {
    if (this.#fileError !== null) this.#print(`shop-sandbox: ${this.path} is up to date again`)
    this.#fileError = null
    this.#retryMs = FIRST_RETRY_MS
    clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
  }

  /** The file could not be written: its changes stay in the log; tried again with backoff. */
  #fileFailed(error: unknown): void {
    const reason = reasonOf(error)
    if (reason !== this.#fileError)
      this.#print(
        `shop-sandbox: cannot write ${this.path}: ${reason}; changes are kept in ${this.#logPath} until it can be written`,
      )
    this.#fileError = reason
    if (this.#closed) return
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      this.#compactDue = true
      this.#kick()
    }, this.#retryMs)
    this.#retryTimer.unref?.()
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2)
  }

  /**
   * Appends a line to the log and fsyncs it; on failure, takes back whatever part got written.
   * A line of changes that only shrink the data (deletes) may spend the reserve on a full disk.
   */
  async #append(line: string, shrinking: boolean): Promise<void> {
    const log = this.#log
    if (!log) throw new DataFileError('the log is closed')
    const bytes = Buffer.from(line)
    const position = this.#logBytes
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
        this.#logBytes += bytes.byteLength
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
          await rm(this.#reservePath, { force: true }).catch(() => undefined)
          this.#reserve = false
          continue
        }
        throw error
      }
    }
  }

  /** After the file took everything: the log starts over (a dead one is opened anew). */
  async #emptyLog(): Promise<void> {
    this.#logChanges = 0
    const log = this.#log
    if (!log) return
    if ((await log.stat().catch(() => null))?.nlink === 0) {
      await log.close().catch(() => undefined)
      this.#log = await open(this.#logPath, 'w', this.#mode)
      // The log was removed: with its folder, perhaps, and the lock and the reserve with it.
      await this.#relock()
      this.#reserve = false
    } else {
      await log.truncate(0)
      await log.datasync()
    }
    this.#logBytes = 0
    if (!this.#reserve) await this.#makeReserve()
  }

  async #makeReserve(): Promise<void> {
    try {
      const handle = await open(this.#reservePath, 'w', this.#mode)
      try {
        await handle.writeFile(Buffer.alloc(RESERVE_BYTES))
        await handle.sync()
      } finally {
        await handle.close()
      }
      this.#reserve = true
    } catch {
      await rm(this.#reservePath, { force: true }).catch(() => undefined)
    }
  }

  /** The data as the file holds it: resources in the API's order, fields in the schema's. */
  #serialize(snapshot: Snapshot): string {
    const document: Record<string, unknown> = {}
    for (const resource of this.catalog.resources) {
      const fields = resource.fields
      document[resource.name] = (snapshot[resource.name] ?? []).map((record) =>
        ordered(record, fields),
      )
    }
    document.nextIds = snapshot.nextIds
    return `${JSON.stringify(document, null, this.#pretty ? 2 : undefined)}\n`
  }

  #tempPath(): string {
    return tempPathBeside(this.#target)
  }

  /**
   * Writes the whole file: a temp file with the file's mode (and owner, where this process may)
   * fsynced, then renamed over the real file and the folder fsynced. A hand edit that arrived
   * since this server last looked is kept beside the file first, and reported.
   */
  async #writeFile(snapshot: Snapshot): Promise<void> {
    const started = performance.now()
    const text = this.#serialize(snapshot)
    const temp = this.#tempPath()
    // The file's mode and owner as they are now (someone may have changed them meanwhile).
    const current = await stat(this.#target).catch(() => null)
    if (current) {
      this.#mode = current.mode & 0o7777
      this.#owner = { uid: current.uid, gid: current.gid }
    }
    // What the file is once renamed (a rename keeps the inode and mtime), known before the
    // rename: an edit right after it is then never taken for this server's own write.
    let written: Known
    try {
      const handle = await open(temp, 'wx', this.#mode)
      try {
        await handle.writeFile(text, 'utf8')
        await handle.chmod(this.#mode)
        if (this.#owner) await handle.chown(this.#owner.uid, this.#owner.gid).catch(() => undefined)
        await handle.sync()
        const { size, mtimeMs, ino } = await handle.stat()
        written = { size, mtimeMs, ino }
      } finally {
        await handle.close()
      }
      const now = await this.#stat()
      if (now !== null && this.#known !== null && !same(now, this.#known)) {
        await this.#settled()
        await this.#keepEdit('was edited on disk while the sandbox had changes to write')
      }
      await rename(temp, this.#target)
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined)
      throw error
    }
    this.#known = written
    await syncFolder(dirname(this.#target))
    this.#fileBytes = text.length
    this.#lastSavedAt = new Date().toISOString()
    this.#lastWriteMs = performance.now() - started
  }

  /**
   * Copies the file as it is now beside it (`<name>.edit-<time>.json`) and says why: the
   * sandbox's data wins (acknowledged writes are never dropped), or the edit is invalid.
   */
  async #keepEdit(
    why: string,
    verdict = "the sandbox's data wins (acknowledged writes are never dropped)",
  ): Promise<string | null> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const copy = join(
      dirname(this.#target),
      `${basename(this.#target).replace(/\.json$/i, '')}.edit-${stamp}.json`,
    )
    try {
      await copyFile(this.#target, copy)
      this.#print(`shop-sandbox: ${this.path} ${why}; ${verdict}; your edit is kept in ${copy}`)
      return copy
    } catch (error) {
      this.#print(
        `shop-sandbox: ${this.path} ${why}; ${verdict}; your edit could not be kept (${reasonOf(error)})`,
      )
      return null
    }
  }

  #watch(): void {
    watchFile(this.#target, { interval: WATCH_MS, persistent: false }, (current) =>
      this.#onFileChange(current),
    )
    try {
      // The folder's events catch edits between polls (and editors that save by renaming).
      this.#folderWatcher = watch(dirname(this.#target), { persistent: false }, (_, name) => {
        if (name === basename(this.#target))
          void this.#stat().then((now) => (now ? this.#onFileChange(now) : this.#onRemoved()))
      })
      this.#folderWatcher.on('error', () => undefined)
    } catch {
      // Polling alone, then.
    }
    this.#watching = true
  }

  #stopWatching(): void {
    if (!this.#watching) return
    this.#watching = false
    unwatchFile(this.#target)
    this.#folderWatcher?.close()
    this.#folderWatcher = null
  }

  /** The file or its folder changed: whether by hand is checked in turn with the writes. */
  #onFileChange(current: Stats | Known): void {
    if (this.#closed) return
    if ('nlink' in current && current.nlink === 0) return this.#onRemoved()
    if (this.#known !== null && same(current, this.#known)) return
    this.#checkEdit = true
    this.#kick()
  }

  /**
   * The file was removed (or renamed away), as the poll or the folder's events tell: the
   * sandbox's data is what was acknowledged, so it is written to the file again rather than
   * lost at the next start.
   */
  #onRemoved(): void {
    if (this.#closed || this.#known === null) return
    this.#known = null
    this.#print(`shop-sandbox: ${this.path} was removed; the sandbox writes its data to it again`)
    // A moment later, not at once: a folder being removed (`rm -r`) is not refilled under the
    // remover's hands (its rmdir would fail), and a folder gone stays gone.
    setTimeout(() => {
      if (this.#closed) return
      this.#compactDue = true
      this.#kick()
    }, IDLE_MS).unref?.()
  }

  /**
   * A hand edit (the file changed, and not by this server): loaded when it is valid and the
   * sandbox has nothing waiting to be written; otherwise the sandbox's data wins and the edit is
   * kept beside the file. Each edit is reported.
   */
  async #handleEdit(): Promise<void> {
    const now = await this.#settled()
    if (now === null || (this.#known !== null && same(now, this.#known))) return
    this.#known = now
    const text = await readFile(this.#target, 'utf8')
    if (this.#logChanges > 0 || this.store.sequence > this.#durable) {
      await this.#keepEdit('was edited on disk while the sandbox had changes not yet in it')
      this.#compactDue = true
      return
    }
    const parsed = this.#parse(text)
    if (typeof parsed === 'string') {
      await this.#keepEdit(
        `was edited on disk but ${parsed}`,
        'ignored: the sandbox keeps its data and writes it to the file again',
      )
      // Now, not at the next write: without one, the next start would find only the edit.
      this.#compactDue = true
      return
    }
    // Checked again: a write may have come in while the file was read.
    if (this.store.sequence > this.#durable) {
      await this.#keepEdit('was edited on disk while the sandbox had changes not yet in it')
      this.#compactDue = true
      return
    }
    // Loaded as the new durable state: the file already holds it.
    this.store.untracked(() => this.store.restore(parsed))
    this.#fileBytes = text.length
    this.#print(`shop-sandbox: ${this.path} was edited on disk: loaded`)
  }

  /**
   * The file's state once it stops changing: an editor (or `writeFile`) empties the file and
   * then writes it, and what is seen in between is no edit of anyone's.
   */
  async #settled(): Promise<Known | null> {
    let before = await this.#stat()
    for (let look = 0; look < 20; look++) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
      const after = await this.#stat()
      if (before === null || after === null || same(before, after)) return after
      before = after
    }
    return before
  }

  async #stat(): Promise<Known | null> {
    try {
      const { size, mtimeMs, ino } = await stat(this.#target)
      return { size, mtimeMs, ino }
    } catch {
      return null
    }
  }
}

/**
 * Whether changes make the data no bigger: a delete, with what it cascades to and what the
 * rules of the records removed change in others (an order's stock given back to its products),
 * and nothing created.
 */
function shrinks(changes: readonly StoreChange[]): boolean {
  return (
    changes.some(({ change }) => change.kind === 'record' && change.after === undefined) &&
    changes.every(({ change }) => change.kind === 'record' && change.before !== undefined)
  )
}

/** A record with the schema's fields first, in the schema's order (as it is when already so). */
function ordered(record: Row, fields: readonly string[]): Row {
  const keys = Object.keys(record)
  if (keys.length === fields.length && keys.every((key, index) => key === fields[index]))
    return record
  const copy: Record<string, unknown> = {}
  for (const field of fields) if (field in record) copy[field] = (record as never)[field]
  for (const key of keys) if (!(key in copy)) copy[key] = (record as never)[key]
  return copy as unknown as Row
}

function same(a: Known, b: Known): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
