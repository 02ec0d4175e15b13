import type { Stats } from 'node:fs'
import { lstat, readdir, rm, stat } from 'node:fs/promises'
import { NotAFile, readRegularFile, TooLargeFile } from '../regular-file.js'
import { basename, dirname, join, resolve } from 'node:path'
import type { ProgressReporter } from '../../db/progress.js'
import type { Snapshot, Store, StoreChange } from '../../db/store.js'
import type { Catalog } from '../../resources/catalog.js'
import { checkSnapshot, unknownKey } from '../../resources/document.js'
import { heapRoom, heapShareProblem, READ_FACTOR, SEED_SHARE } from '../../resources/seed.js'
import type { Persistence, PersistenceStatus } from '../../state/instance.js'
import { realTarget } from './atomic.js'
import { cannot, DataFileError, reasonOf } from './errors.js'
import type { Known } from './fold.js'
import { FoldedFile, same } from './fold.js'
import { FileLock } from './lock.js'
import { GroupCommit, WriteLog } from './log.js'
import { logLine, replayLog } from './log-lines.js'
import { EditWatcher } from './watch.js'

export { DataFileError } from './errors.js'
export { realTarget, syncFolder } from './atomic.js'

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

/**
 * Keeps the default sandbox's data in a JSON file (CONTRACT C3; issue 30: acknowledged means on
 * disk): the coordinator of its parts. One server per file (lock.ts). Every write request's
 * changes are appended to a log beside the file and fsynced before the request is answered;
 * requests arriving while one append runs share the next (log.ts: the log and group commit).
 * When they cannot be made durable, they are undone and their requests get 503 / 50300: memory
 * never holds what the disk lacks. The log is folded into the data file (fold.ts) when writes
 * pause or it grows; a start replays whatever log a crash left (log-lines.ts). The file is found
 * through symlinks, keeps its mode and owner, and is pretty-printed. Valid hand edits (watch.ts)
 * are loaded while nothing is pending; otherwise the sandbox's data wins and the edit is kept
 * beside the file, and the log says so every time.
 */
export class DataFile implements Persistence {
  readonly #file: FoldedFile
  #lock!: FileLock
  #log!: WriteLog
  readonly #commits: GroupCommit
  #watcher: EditWatcher | null = null
  #compactDue = false
  #idleTimer: ReturnType<typeof setTimeout> | undefined
  #retryTimer: ReturnType<typeof setTimeout> | undefined
  #retryMs = FIRST_RETRY_MS
  /** Why the last flush could not be made durable (writes are refused 503 until one is). */
  #writeError: string | null = null
  /** Why the data file itself could not be written lately (its changes wait in the log). */
  #fileError: string | null = null
  /** Lines of a log the last run left, applied at start. */
  #replayed = 0
  /** The file may have been edited by hand: checked at the start of the next flush round. */
  #checkEdit = false
  #unsubscribe: (() => void) | undefined
  #closed = false
  readonly #print: (line: string) => void

  constructor(
    readonly path: string,
    private readonly store: Store,
    private readonly catalog: Catalog,
    options: DataFileOptions = {},
  ) {
    this.#print = options.log ?? ((line) => console.error(line))
    this.#file = new FoldedFile(path, resolve(path), catalog, options.pretty ?? true, this.#print)
    this.#commits = new GroupCommit(
      () => this.#flush(),
      () =>
        this.store.sequence > this.#commits.durable ||
        (this.#compactDue && !this.#closed) ||
        (this.#checkEdit && !this.#closed),
      () => this.#afterFlush(),
    )
  }

  /** A file beside the real one: `.<name>.lock`, `.log`, `.reserve`. */
  #beside(kind: string): string {
    return join(dirname(this.#file.target), `.${basename(this.#file.target)}.${kind}`)
  }

  get status(): PersistenceStatus {
    return {
      ok: this.#writeError === null,
      error: this.#writeError ?? this.#fileError,
      unsavedChanges: this.#log.changes > 0 || this.store.sequence > this.#commits.durable,
      lastSavedAt: this.#file.lastSavedAt,
    }
  }

  /** Locks and loads the file (replaying a log a crash left), or writes the store to a new file. */
  async open(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    try {
      this.#file.target = await realTarget(this.path)
    } catch (error) {
      throw new DataFileError(cannot('read', this.path, error))
    }
    this.#lock = new FileLock(this.path, this.#beside('lock'), this.#print)
    this.#log = new WriteLog(
      this.#beside('log'),
      this.#beside('reserve'),
      () => this.#file.mode,
      () => this.#lock.relock(),
    )
    await this.#lock.lock()
    try {
      await this.#removeStaleTemps()
      const outcome = await this.#load(onProgress)
      this.store.track()
      this.#commits.durable = this.store.sequence
      await this.#log.open()
      if (outcome === 'created') await this.#file.write(this.store.snapshot())
      else if (this.#log.bytes > 0) {
        // What a crash left in the log goes into the file now, or stays in the log (a full
        // disk): either way it is durable, and the start goes on.
        this.#log.changes = this.#replayed
        try {
          await this.#file.write(this.store.snapshot())
          await this.#log.empty()
        } catch (error) {
          this.#fileFailed(error)
          // A disk that refused the file now refuses writes too, most likely: `ok` says so until
          // a write is made.
          if (['ENOSPC', 'EDQUOT', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? ''))
            this.#writeError = reasonOf(error)
        }
      }
      await this.#log.makeReserve()
      this.#unsubscribe = this.store.subscribe(() => {
        // A change outside a request (sandbox.reset(), restore()): written like the others.
        if (this.store.sequence > this.#commits.durable) this.#commits.kick()
      })
      this.#watcher = new EditWatcher(
        this.#file.target,
        (current) => this.#onFileChange(current),
        () => this.#onRemoved(),
        () => this.#file.stat(),
      )
      this.#watcher.start()
      return outcome
    } catch (error) {
      await this.#log.closeHandle()
      this.#lock.unlockSync()
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
    return this.#commits.commit(this.store.sequence)
  }

  /**
   * Folds the log into the file and releases it. Throws a {@link DataFileError} whose message is
   * the one line to end with when the file could not be brought up to date (the caller exits 1).
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#stop()
    // A retry that was waiting is made now (a compaction waits while a retry is pending).
    this.#retryTimer = undefined
    await this.#commits.idle()
    // The file as this server last wrote it, or not: removed or edited meanwhile (and not yet
    // looked at), it is checked and written again, so the next start finds what was acknowledged.
    const onDisk = await this.#file.stat()
    if (onDisk === null || this.#file.known === null || !same(onDisk, this.#file.known)) {
      this.#checkEdit = true
      this.#compactDue = true
    }
    // Requests still finishing may change data while the log is folded in: a few rounds, until
    // a round leaves nothing behind (or the disk refuses: then the log keeps it).
    for (
      let round = 0;
      round < 3 &&
      (this.#compactDue || this.#log.changes > 0 || this.store.sequence > this.#commits.durable);
      round++
    ) {
      this.#compactDue = true
      this.#commits.kick()
      await this.#commits.idle()
      if (this.#fileError !== null || this.#writeError !== null) break
    }
    const behind = this.#log.changes
    const lost = this.store.sequence > this.#commits.durable
    await this.#log.close()
    this.#lock.unlockSync()
    if (lost)
      throw new DataFileError(
        `changes were not saved to ${this.path}: ${this.#writeError ?? 'the disk refused them'}`,
      )
    if (behind > 0)
      throw new DataFileError(
        `${this.path} is not up to date: ${this.#fileError ?? 'it could not be written'}; its last ${behind} change${behind === 1 ? ' is' : 's are'} kept in ${this.#log.logPath} and applied at the next start`,
      )
  }

  /**
   * An exit that cannot wait (a second Ctrl-C): everything acknowledged is in the log already;
   * the file is brought up to date synchronously when it can be. Returns whether the file holds
   * everything (false: the log still does).
   */
  saveSync(): boolean {
    this.#stop()
    let saved = this.#log.changes === 0
    if (!saved) {
      try {
        this.#file.writeSync(this.store.snapshot())
        this.#log.emptySync()
        saved = true
      } catch (error) {
        this.#fileError = reasonOf(error)
      }
    }
    this.#lock.unlockSync()
    return saved
  }

  /** No more rounds: the watcher, the store's news and the timers stop. */
  #stop(): void {
    this.#closed = true
    this.#watcher?.stop()
    this.#unsubscribe?.()
    clearTimeout(this.#idleTimer)
    clearTimeout(this.#retryTimer)
  }

  /** Temp files a crashed run left beside the target (`.<name>.<random>.tmp`). */
  async #removeStaleTemps(): Promise<void> {
    const prefix = `.${basename(this.#file.target)}.`
    const folder = dirname(this.#file.target)
    for (const name of await readdir(folder).catch(() => [])) {
      if (name.startsWith(prefix) && name.endsWith('.tmp'))
        await rm(join(folder, name), { force: true })
    }
  }

  /**
   * Refuses to start over a log or reserve path that holds anything but a regular file: a
   * symbolic link there would aim the log's lines, or the reserve's zeros, at the file it names
   * (they are opened without following one, so one planted later fails their write instead).
   */
  async #ownFile(kind: 'log' | 'reserve', path: string): Promise<void> {
    const stats = await lstat(path).catch(() => null)
    if (stats && !stats.isFile())
      throw new DataFileError(
        `the ${kind} of data file ${this.path} (${path}) is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}: the files beside the data file are the sandbox's own and never followed; move it away`,
      )
  }

  /** Reads the file (and a log a crash left) into the store; `created` when there was no file. */
  async #load(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    const target = this.#file.target
    let text: string | undefined
    try {
      text = await readRegularFile(target, readableBytes())
      const { mode, uid, gid } = await stat(target)
      this.#file.mode = mode & 0o7777
      this.#file.owner = { uid, gid }
    } catch (error) {
      if (error instanceof TooLargeFile)
        throw new DataFileError(`data file ${this.path} ${tooLarge(error.size)}`)
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DataFileError(cannot('read', this.path, error))
    }
    let document: Snapshot | null = null
    if (text !== undefined) {
      const parsed = this.#parse(text, false)
      if (typeof parsed === 'string') throw new DataFileError(`data file ${this.path} ${parsed}`)
      document = parsed
      this.#file.bytes = text.length
    }
    const logPath = this.#log.logPath
    await this.#ownFile('log', logPath)
    await this.#ownFile('reserve', this.#log.reservePath)
    // A log that cannot be read is writes acknowledged and not replayed: refused, never
    // taken for an empty one (only a missing log is none).
    let logText = ''
    try {
      logText = await readRegularFile(logPath, readableBytes(), false)
    } catch (error) {
      if (error instanceof TooLargeFile)
        throw new DataFileError(
          `the log of data file ${this.path} (${logPath}) ${tooLarge(error.size)}`,
        )
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DataFileError(cannot('read the log of', this.path, error))
    }
    if (logText !== '') {
      const base = document ?? this.store.snapshot()
      const replayed = replayLog(base, logText, this.catalog.names)
      if ('problem' in replayed)
        throw new DataFileError(
          `the log of data file ${this.path} (${logPath}) is damaged: ${replayed.problem}; move it away to start from the file alone`,
        )
      const check = checkSnapshot(this.catalog, replayed.document)
      if (!check.ok)
        throw new DataFileError(
          `the log of data file ${this.path} (${logPath}) does not apply: ${check.problem}; move it away to start from the file alone`,
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
    this.#file.known = await this.#file.stat()
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
    const unknown = unknownKey(this.catalog, parsed)
    if (unknown) return `is invalid: ${unknown}`
    const document = check.document as Snapshot
    // An edit without id sequences never lowers those the sandbox has handed out (B1: ids are
    // never reused); at start, a file without them continues after its highest ids.
    if ((document as Partial<Snapshot>).nextIds === undefined && running)
      return { ...(document as object), nextIds: this.store.nextIds() } as Snapshot
    return document
  }

  /** Once writes pause: the log is folded into the file soon. */
  #afterFlush(): void {
    if (this.#closed || this.#log.changes === 0 || this.#retryTimer) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(
      () => {
        this.#idleTimer = undefined
        this.#compactDue = true
        this.#commits.kick()
      },
      Math.min(MAX_IDLE_MS, Math.max(IDLE_MS, 10 * this.#file.lastWriteMs)),
    )
    this.#idleTimer.unref?.()
  }

  /**
   * One round of group commit: takes every change made so far and makes it durable, in the
   * file (when a fold is due, or the changes replace the data) or else in the log; when neither
   * can be written, undoes them and every change made since, and refuses their commits.
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
      this.#log.bytes > Math.max(COMPACT_BYTES, this.#file.bytes / 2)
    this.#compactDue = false
    // Taken in the same tick as the changes: exactly the durable data plus these changes.
    const snapshot = compact || replaces ? this.store.snapshot() : null
    let durable = changes.length === 0
    let failure: unknown
    if (snapshot && compact) {
      try {
        await this.#file.write(snapshot)
        durable = true
        this.#fileSaved()
        await this.#log.empty()
      } catch (error) {
        failure = error
        this.#fileFailed(error)
      }
    }
    if (!durable) {
      try {
        await this.#log.append(
          logLine(changes, nextIds, () => snapshot!),
          shrinks(changes),
        )
        this.#log.changes += changes.length
        durable = true
      } catch (error) {
        failure ??= error
        if (!compact) {
          // The log cannot take it: perhaps the file can (a log removed by hand, say).
          try {
            await this.#file.write(this.store.snapshot())
            durable = true
            this.#fileSaved()
            await this.#log.empty()
          } catch {
            // Neither: reported below.
          }
        }
      }
    }
    if (durable) {
      this.#commits.durable = Math.max(this.#commits.durable, target)
      if (this.#writeError !== null) this.#print(`shop-sandbox: ${this.path} is written again`)
      this.#writeError = null
      this.#commits.settle(null)
      return
    }
    // Not durable: these changes and every change made since are undone, and refused.
    const later = this.store.takeChanges()
    this.store.undo([...changes, ...later])
    this.#commits.durable = this.store.sequence
    const reason = reasonOf(failure)
    if (reason !== this.#writeError)
      this.#print(
        `shop-sandbox: cannot write ${this.path}: ${reason}; writes are refused (503) and undone until it can be written`,
      )
    this.#writeError = reason
    this.#commits.settle(new DataFileError(`data file cannot be written: ${reason}`))
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
        `shop-sandbox: cannot write ${this.path}: ${reason}; changes are kept in ${this.#log.logPath} until it can be written`,
      )
    this.#fileError = reason
    if (this.#closed) return
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      this.#compactDue = true
      this.#commits.kick()
    }, this.#retryMs)
    this.#retryTimer.unref?.()
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2)
  }

  /** The file or its folder changed: whether by hand is checked in turn with the writes. */
  #onFileChange(current: Stats | Known): void {
    if (this.#closed) return
    if ('nlink' in current && current.nlink === 0) return this.#onRemoved()
    if (this.#file.known !== null && same(current, this.#file.known)) return
    this.#checkEdit = true
    this.#commits.kick()
  }

  /**
   * The file was removed (or renamed away), as the poll or the folder's events tell: the
   * sandbox's data is what was acknowledged, so it is written to the file again rather than
   * lost at the next start.
   */
  #onRemoved(): void {
    if (this.#closed || this.#file.known === null) return
    this.#file.known = null
    this.#print(`shop-sandbox: ${this.path} was removed; the sandbox writes its data to it again`)
    // A moment later, not at once: a folder being removed (`rm -r`) is not refilled under the
    // remover's hands (its rmdir would fail), and a folder gone stays gone.
    setTimeout(() => {
      if (this.#closed) return
      this.#compactDue = true
      this.#commits.kick()
    }, IDLE_MS).unref?.()
  }

  /**
   * A hand edit (the file changed, and not by this server): loaded when it is valid and the
   * sandbox has nothing waiting to be written; otherwise the sandbox's data wins and the edit is
   * kept beside the file. Each edit is reported.
   */
  async #handleEdit(): Promise<void> {
    const file = this.#file
    const now = await file.settled()
    if (now === null || (file.known !== null && same(now, file.known))) return
    file.known = now
    let text: string
    try {
      text = await readRegularFile(file.target, readableBytes())
    } catch (error) {
      if (error instanceof TooLargeFile) {
        await file.keepEdit(
          `was edited on disk to a file that ${tooLarge(error.size)}`,
          'ignored: the sandbox keeps its data and writes it to the file again',
        )
        this.#compactDue = true
        return
      }
      // Replaced by what is not a file (a FIFO, a device), or gone again: the sandbox's data
      // are written back in its place.
      this.#print(
        `shop-sandbox: ${this.path} ${error instanceof NotAFile ? 'was replaced by something that is not a regular file' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`}; the sandbox keeps its data and writes it to the file again`,
      )
      this.#compactDue = true
      return
    }
    if (this.#log.changes > 0 || this.store.sequence > this.#commits.durable) {
      await file.keepEdit('was edited on disk while the sandbox had changes not yet in it')
      this.#compactDue = true
      return
    }
    const parsed = this.#parse(text)
    if (typeof parsed === 'string') {
      await file.keepEdit(
        `was edited on disk but ${parsed}`,
        'ignored: the sandbox keeps its data and writes it to the file again',
      )
      // Now, not at the next write: without one, the next start would find only the edit.
      this.#compactDue = true
      return
    }
    // Checked again: a write may have come in while the file was read.
    if (this.store.sequence > this.#commits.durable) {
      await file.keepEdit('was edited on disk while the sandbox had changes not yet in it')
      this.#compactDue = true
      return
    }
    // Loaded as the new durable state: the file already holds it.
    this.store.untracked(() => this.store.restore(parsed))
    file.bytes = text.length
    this.#print(`shop-sandbox: ${this.path} was edited on disk: loaded`)
  }
}

/**
 * The largest data file there is room to read now: ~{@link READ_FACTOR} times its size within
 * the share of the heap's free room a generated data set may take. A 255 MB file put in place
 * of the data file ran a 512 MB server out of memory; past this it is refused (at start) or
 * ignored and kept aside (a hand edit), naming its size.
 */
function readableBytes(): number {
  const room = heapRoom()
  return room === undefined
    ? Number.POSITIVE_INFINITY
    : Math.floor((room * SEED_SHARE) / READ_FACTOR)
}

/** Why a file of `size` bytes is not read. */
function tooLarge(size: number): string {
  const problem = heapShareProblem(size * READ_FACTOR, 'once read') ?? 'more than there is room for'
  return `is ${Math.ceil(size / 2 ** 20)} MB, which would take ${problem}: give Node a larger heap (node --max-old-space-size=<MB>)`
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
