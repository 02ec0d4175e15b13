import { checkSnapshot } from '../db/document.js'
import type { DbSnapshot, Store } from '../db/store.js'

/** What is kept in browser storage: the data, its id sequences, and a revision counter. */
interface Saved {
  version: 1
  /** Increases with every save from any tab: a tab holding an older one reloads first. */
  revision?: number
  snapshot: DbSnapshot
}

/** The browser side of a persisted store: stop, and run a write with every tab in step. */
export interface StoragePersistence {
  /** Stops saving and listening. */
  stop(): void
  /**
   * Runs a write as the only writer among the tabs (the Web Locks API): the newest data from
   * storage is loaded first and the result saved before the next tab's write starts, so ids
   * stay unique and no acknowledged write is lost.
   */
  exclusive<T>(write: () => Promise<T>): Promise<T>
}

/**
 * Keeps a store in `localStorage` across reloads, and in step across tabs: every change is
 * saved, a change saved by another tab (the `storage` event) is loaded, and writes run one
 * tab at a time ({@link StoragePersistence.exclusive}). A storage error (quota) is reported
 * once in the console; the app goes on with the data in memory.
 */
export function persistInStorage(
  store: Store,
  key: string,
  storage: Storage = localStorage,
): StoragePersistence {
  const saved = read(storage, key)
  let revision = saved?.revision ?? 0
  if (saved) store.restore(saved.snapshot)
  let applying = false
  let pending = false
  let failed = false
  /** The newest revision any tab saved (a small key of its own, cheap to read). */
  const storedRevision = () => Number(storage.getItem(`${key}:revision`) ?? 0) || 0
  const save = () => {
    pending = false
    if (failed) return
    try {
      const next = Math.max(revision, storedRevision()) + 1
      storage.setItem(
        key,
        JSON.stringify({ version: 1, revision: next, snapshot: store.snapshot() } satisfies Saved),
      )
      storage.setItem(`${key}:revision`, String(next))
      revision = next
    } catch (error) {
      failed = true
      console.warn(
        `[shop-sandbox] cannot save the data in browser storage (${(error as Error).name}); the sandbox goes on in memory and changes will not survive a reload`,
      )
    }
  }
  /** Loads what another tab saved, when it is newer than what this tab has. */
  const catchUp = () => {
    if (storedRevision() <= revision) return
    const newest = read(storage, key, false)
    if (newest && (newest.revision ?? 0) > revision) apply(newest)
  }
  const apply = (incoming: Saved) => {
    applying = true
    try {
      store.restore(incoming.snapshot)
      revision = incoming.revision ?? revision
    } finally {
      applying = false
    }
  }
  const stopSaving = store.subscribe(() => {
    if (applying || pending) return
    pending = true
    queueMicrotask(() => {
      if (pending) save()
    })
  })
  if (!saved) save()
  const onStorage = (event: StorageEvent) => {
    if (event.key !== key || event.newValue === null) return
    const incoming = parse(event.newValue)
    if (incoming && (incoming.revision ?? 0) > revision) apply(incoming)
  }
  window.addEventListener('storage', onStorage)
  const locks = (globalThis.navigator as Navigator | undefined)?.locks
  return {
    stop() {
      stopSaving()
      window.removeEventListener('storage', onStorage)
    },
    exclusive<T>(write: () => Promise<T>): Promise<T> {
      const run = async () => {
        catchUp()
        try {
          return await write()
        } finally {
          if (pending) save()
        }
      }
      return locks ? (locks.request(`shop-sandbox:${key}`, run) as Promise<T>) : run()
    },
  }
}

function read(storage: Storage, key: string, repair = true): Saved | null {
  const text = storage.getItem(key)
  if (text === null) return null
  const saved = parse(text)
  if (!saved && repair) {
    console.warn(
      `[shop-sandbox] ignoring invalid saved data under "${key}"; starting from the seed`,
    )
    storage.removeItem(key)
  }
  return saved
}

function parse(text: string): Saved | null {
  try {
    const saved = JSON.parse(text) as Partial<Saved>
    if (saved.version !== 1 || !saved.snapshot?.nextIds) return null
    const check = checkSnapshot(saved.snapshot)
    if (!check.ok) return null
    return {
      version: 1,
      ...(typeof saved.revision === 'number' ? { revision: saved.revision } : {}),
      snapshot: check.document as DbSnapshot,
    }
  } catch {
    return null
  }
}
