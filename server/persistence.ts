import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { checkDocument } from '../db/document.js'
import type { ProgressReporter } from '../db/progress.js'
import type { Store } from '../db/store.js'

/** How long a change waits before it is written, so a burst of changes makes one write. */
const DEBOUNCE_MS = 100

/** A data file that could not be used; the file is left as it was. */
export class DataFileError extends Error {
  override readonly name = 'DataFileError'
}

/**
 * Keeps a store in a JSON file: loads it at start (validated as for `PUT /__sandbox/db`) or
 * creates it from the seed, then writes every change back atomically (a temp file renamed
 * over the old one), debounced, and flushed on close. A crash never leaves half a file.
 */
export class DataFile {
  #timer: ReturnType<typeof setTimeout> | undefined
  #writing: Promise<void> = Promise.resolve()
  #dirty = false
  #lastWriteMs = 0
  #unsubscribe: (() => void) | undefined

  constructor(
    readonly path: string,
    private readonly store: Store,
  ) {}

  /** Loads the file into the store, or writes the store to a new file. Returns what happened. */
  async open(onProgress?: ProgressReporter): Promise<'loaded' | 'created'> {
    let text: string | undefined
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new DataFileError(`cannot read data file ${this.path}: ${(error as Error).message}`)
      }
    }
    let outcome: 'loaded' | 'created' = 'created'
    if (text === undefined) {
      await this.#write()
    } else {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        throw new DataFileError(
          `data file ${this.path} is not valid JSON: ${(error as Error).message}`,
        )
      }
      const check = checkDocument(parsed, onProgress)
      if (!check.ok) throw new DataFileError(`data file ${this.path} is invalid: ${check.problem}`)
      this.store.restore(check.document, onProgress)
      outcome = 'loaded'
    }
    this.#unsubscribe = this.store.subscribe(() => this.#schedule())
    return outcome
  }

  /** Writes pending changes now and stops listening. */
  async close(): Promise<void> {
    this.#unsubscribe?.()
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#dirty) await this.#enqueue()
    await this.#writing
  }

  /**
   * Writes at most once per interval: the first change starts the wait, later ones ride along,
   * so a steady stream of changes still reaches the disk (a big data set waits longer).
   */
  #schedule(): void {
    this.#dirty = true
    if (this.#timer !== undefined) return
    this.#timer = setTimeout(
      () => void this.#enqueue(),
      Math.max(DEBOUNCE_MS, 4 * this.#lastWriteMs),
    )
  }

  #enqueue(): Promise<void> {
    this.#timer = undefined
    this.#dirty = false
    this.#writing = this.#writing
      .then(() => this.#write())
      .catch((error: unknown) => {
        console.error(`[shop-sandbox] could not write ${this.path}:`, error)
      })
    return this.#writing
  }

  async #write(): Promise<void> {
    const started = performance.now()
    const text = `${JSON.stringify(this.store.toJSON())}\n`
    const temp = join(
      dirname(this.path),
      `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`,
    )
    const handle = await open(temp, 'w')
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    try {
      await rename(temp, this.path)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    this.#lastWriteMs = performance.now() - started
  }
}
