import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { open, readdir, rename, rm, stat } from 'node:fs/promises'
import { copyRegularFile } from '../regular-file.js'
import { basename, dirname, join } from 'node:path'
import { inSlices, SLICE, whole } from '../../db/progress.js'
import type { Snapshot } from '../../db/store.js'
import type { Row } from '../../db/table.js'
import type { Catalog } from '../../resources/catalog.js'
import { syncFolder, tempPathBeside } from './atomic.js'
import { reasonOf } from './errors.js'

/** A hand edit is read once the file has not changed for this long. */
const SETTLE_MS = 50

/** Copies of a data file's edits the server kept that stay beside it (`<name>.edit-<time>.json`), the newest. */
const KEPT_EDITS = 20

/**
 * Bytes those copies take at most, together: the oldest go first past it, and an edit larger
 * alone is not copied (a data file truncated to 3 GB was copied whole at each edit, 4.6 GB of
 * disk in seconds).
 */
const KEPT_EDIT_BYTES = 512 * 2 ** 20

/** A copy's `<time>.json`: the moment as `toISOString` writes it, `:` and `.` made `-`. */
const editStamp = (date: Date) => `${date.toISOString().replace(/[:.]/g, '-')}.json`
/** What {@link editStamp} gives, and nothing else (a file of the user's own stays). */
const EDIT_STAMP = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.json$/

/** What the file was when this server last wrote or read it, to tell hand edits from its own writes. */
export type Known = { size: number; mtimeMs: number; ino: number }

export function same(a: Known, b: Known): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino
}

/**
 * The data file itself, written whole (the log folded into it): a temp file with the file's
 * mode (and owner, where this process may) fsynced, renamed over the real file, the folder
 * fsynced. Pretty-printed as json-server writes `db.json`: resources in the API's order,
 * fields in the schema's. Knows what it last wrote, to tell a hand edit from its own write.
 */
export class FoldedFile {
  /** The real file: the path itself, or where its chain of symlinks ends. */
  target: string
  mode = 0o644
  owner: { uid: number; gid: number } | null = null
  /** The file as this server last wrote or read it (null: unknown, or removed). */
  known: Known | null = null
  /** Its size in characters (the log is folded in once it holds half as much). */
  bytes = 0
  lastSavedAt: string | null = null
  /** How long the last whole-file write took. */
  lastWriteMs = 0

  constructor(
    /** The data file as given (for messages). */
    readonly path: string,
    target: string,
    readonly catalog: Catalog,
    readonly pretty: boolean,
    readonly print: (line: string) => void,
  ) {
    this.target = target
  }

  /**
   * The data as the file holds it: resources in the API's order, fields in the schema's; the
   * text `JSON.stringify` gives the whole document (pretty: indented by two), made record by
   * record and yielding after every {@link SLICE} records, so that writing a big file does not
   * hold the event loop (100,000 users pretty-printed: ~300 ms in one piece).
   */
  *serializing(snapshot: Snapshot): Generator<void, string> {
    const indent = this.pretty ? 2 : undefined
    // Where a value two levels down (a record) or one (the id sequences) begins, and its lines.
    const at = (depth: number) => (this.pretty ? `\n${'  '.repeat(depth)}` : '')
    const nested = (text: string, depth: number) =>
      this.pretty ? text.replaceAll('\n', at(depth)) : text
    const colon = this.pretty ? ': ' : ':'
    const members: string[] = []
    for (const { name, fields } of this.catalog.resources) {
      const records = snapshot[name] ?? []
      const parts = [`${at(1)}${JSON.stringify(name)}${colon}[`]
      for (const [index, record] of records.entries()) {
        const text = JSON.stringify(ordered(record, fields), null, indent)
        parts.push(`${index === 0 ? '' : ','}${at(2)}${nested(text, 2)}`)
        if (index % SLICE === SLICE - 1) yield
      }
      parts.push(records.length === 0 ? ']' : `${at(1)}]`)
      members.push(parts.join(''))
    }
    if (snapshot.nextIds !== undefined)
      members.push(
        `${at(1)}"nextIds"${colon}${nested(JSON.stringify(snapshot.nextIds, null, indent), 1)}`,
      )
    return `{${members.join(',')}${members.length === 0 ? '' : at(0)}}\n`
  }

  /**
   * Writes the whole file. A hand edit that arrived since this server last looked is kept
   * beside the file first, and reported.
   */
  async write(snapshot: Snapshot): Promise<void> {
    const started = performance.now()
    const text = await inSlices(this.serializing(snapshot))
    const temp = tempPathBeside(this.target)
    // The file's mode and owner as they are now (someone may have changed them meanwhile).
    const current = await stat(this.target).catch(() => null)
    if (current) {
      this.mode = current.mode & 0o7777
      this.owner = { uid: current.uid, gid: current.gid }
    }
    // What the file is once renamed (a rename keeps the inode and mtime), known before the
    // rename: an edit right after it is then never taken for this server's own write.
    let written: Known
    try {
      const handle = await open(temp, 'wx', this.mode)
      try {
        await handle.writeFile(text, 'utf8')
        await handle.chmod(this.mode)
        if (this.owner) await handle.chown(this.owner.uid, this.owner.gid).catch(() => undefined)
        await handle.sync()
        const { size, mtimeMs, ino } = await handle.stat()
        written = { size, mtimeMs, ino }
      } finally {
        await handle.close()
      }
      const now = await this.stat()
      if (now !== null && this.known !== null && !same(now, this.known)) {
        await this.settled()
        await this.keepEdit('was edited on disk while the sandbox had changes to write')
      }
      await rename(temp, this.target)
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined)
      throw error
    }
    this.known = written
    await syncFolder(dirname(this.target))
    this.bytes = text.length
    this.lastSavedAt = new Date().toISOString()
    this.lastWriteMs = performance.now() - started
  }

  /** {@link write}, synchronously (an exit that cannot wait); throws what writing threw. */
  writeSync(snapshot: Snapshot): void {
    const temp = tempPathBeside(this.target)
    try {
      const fd = openSync(temp, 'wx', this.mode)
      try {
        writeSync(fd, whole(this.serializing(snapshot)))
        fchmodSync(fd, this.mode)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temp, this.target)
    } catch (error) {
      rmSync(temp, { force: true })
      throw error
    }
  }

  /**
   * Copies the file as it is now beside it (`<name>.edit-<time>.json`) and says why: the
   * sandbox's data wins (acknowledged writes are never dropped), or the edit is invalid.
   */
  async keepEdit(
    why: string,
    verdict = "the sandbox's data wins (acknowledged writes are never dropped)",
  ): Promise<string | null> {
    const prefix = `${basename(this.target).replace(/\.json$/i, '')}.edit-`
    const copy = join(dirname(this.target), `${prefix}${editStamp(new Date())}`)
    try {
      const size = (await stat(this.target)).size
      if (size > KEPT_EDIT_BYTES) {
        this.print(
          `shop-sandbox: ${this.path} ${why}; ${verdict}; your edit is not kept: at ${Math.ceil(size / 2 ** 20)} MB, it is larger than the ${KEPT_EDIT_BYTES / 2 ** 20} MB copies of edits may take`,
        )
        return null
      }
      // Its text, from a regular file only (a FIFO put in its place would hold the copy for good).
      await copyRegularFile(this.target, copy)
      this.print(`shop-sandbox: ${this.path} ${why}; ${verdict}; your edit is kept in ${copy}`)
      await this.#keepNewestEdits(prefix)
      return copy
    } catch (error) {
      this.print(
        `shop-sandbox: ${this.path} ${why}; ${verdict}; your edit could not be kept (${reasonOf(error)})`,
      )
      return null
    }
  }

  /**
   * Removes all but the newest {@link KEPT_EDITS} copies of edits, and the oldest of those past
   * {@link KEPT_EDIT_BYTES} together: an editor saving in a loop made a copy of the whole file
   * every few hundred ms, until the disk was full.
   */
  async #keepNewestEdits(prefix: string): Promise<void> {
    try {
      const folder = dirname(this.target)
      const copies = (await readdir(folder))
        .filter((name) => name.startsWith(prefix) && EDIT_STAMP.test(name.slice(prefix.length)))
        .sort()
        .reverse()
      let bytes = 0
      for (const [index, name] of copies.entries()) {
        const path = join(folder, name)
        bytes += (await stat(path)).size
        if (index >= KEPT_EDITS || bytes > KEPT_EDIT_BYTES) await rm(path, { force: true })
      }
    } catch {
      // The copies are a courtesy: one that cannot be listed or removed stays.
    }
  }

  /**
   * The file's state once it stops changing: an editor (or `writeFile`) empties the file and
   * then writes it, and what is seen in between is no edit of anyone's.
   */
  async settled(): Promise<Known | null> {
    let before = await this.stat()
    for (let look = 0; look < 20; look++) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
      const after = await this.stat()
      if (before === null || after === null || same(before, after)) return after
      before = after
    }
    return before
  }

  async stat(): Promise<Known | null> {
    try {
      const { size, mtimeMs, ino } = await stat(this.target)
      return { size, mtimeMs, ino }
    } catch {
      return null
    }
  }
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
