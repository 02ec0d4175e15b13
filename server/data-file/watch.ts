import type { FSWatcher, Stats } from 'node:fs'
import { unwatchFile, watch, watchFile } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Known } from './fold.js'

/** How often the file is polled for hand edits (besides the folder's change events). */
const WATCH_MS = 300

/**
 * Watches the data file for hand edits (json-server reloads them too): polled, and through
 * its folder's events between polls (editors that save by renaming). Tells what it sees; the
 * coordinator decides what an edit means.
 */
export class EditWatcher {
  #watching = false
  #folderWatcher: FSWatcher | null = null

  constructor(
    readonly target: string,
    readonly changed: (current: Stats | Known) => void,
    readonly removed: () => void,
    readonly stat: () => Promise<Known | null>,
  ) {}

  start(): void {
    watchFile(this.target, { interval: WATCH_MS, persistent: false }, (current) =>
      this.changed(current),
    )
    try {
      this.#folderWatcher = watch(dirname(this.target), { persistent: false }, (_, name) => {
        if (name === basename(this.target))
          void this.stat().then((now) => (now ? this.changed(now) : this.removed()))
      })
      this.#folderWatcher.on('error', () => undefined)
    } catch {
      // Polling alone, then.
    }
    this.#watching = true
  }

  stop(): void {
    if (!this.#watching) return
    this.#watching = false
    unwatchFile(this.target)
    this.#folderWatcher?.close()
    this.#folderWatcher = null
  }
}
