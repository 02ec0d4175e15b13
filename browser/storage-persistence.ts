import { checkSnapshot } from '../resources/document.js'
import type { Snapshot, Store } from '../db/store.js'
import type { Catalog } from '../resources/catalog.js'

/** What is kept: the data with its id sequences, and a revision every save increases. */
interface Saved {
  version: 1
  revision: number
  snapshot: Snapshot
}

/** The browser side of a persisted store: stop, and run a write with every tab in step. */
export interface StoragePersistence {
  /** Stops saving and listening. */
  stop(): void
  /**
   * Runs a write as the only writer among the tabs (the Web Locks API): the newest saved data
   * is loaded first and the result is saved before the next tab's write starts, so ids stay
   * unique and no acknowledged write is lost.
   */
  exclusive<T>(write: () => Promise<T>): Promise<T>
}

const DATABASE = 'shop-sandbox'
const STORE = 'data'

/**
 * Keeps a store in IndexedDB across reloads and in step across tabs. IndexedDB, not
 * `localStorage`: a tab's `localStorage` copy of another tab's write arrives late (Chromium
 * syncs it between processes asynchronously), so a tab could write on stale data; IndexedDB
 * transactions always read what was committed. Writes run one tab at a time under a Web Lock;
 * after each, the other tabs hear of it on a BroadcastChannel and load it. A storage error
 * (quota) is reported once in the console; the sandbox goes on in memory.
 */
export async function persistInStorage(
  store: Store,
  catalog: Catalog,
  key: string,
): Promise<StoragePersistence> {
  const database = await openDatabase()
  const locks = (globalThis.navigator as Navigator | undefined)?.locks
  const lockName = `shop-sandbox:${key}`
  const channel = new BroadcastChannel(lockName)
  let revision = 0
  let applying = false
  let changed = false
  let failed = false
  let stopped = false

  const serialized = <T>(run: () => Promise<T>): Promise<T> =>
    locks ? (locks.request(lockName, run) as Promise<T>) : run()

  /** Loads the saved data when it is newer than what this tab has. */
  const catchUp = async () => {
    const saved = await read(database, catalog, key)
    if (!saved || saved.revision <= revision) return
    applying = true
    try {
      store.restore(saved.snapshot)
    } finally {
      applying = false
    }
    revision = saved.revision
  }
  /** Saves this tab's data as the next revision, and tells the other tabs. */
  const save = async () => {
    changed = false
    if (failed) return
    const next = revision + 1
    try {
      await write(database, key, { version: 1, revision: next, snapshot: store.snapshot() })
      revision = next
      channel.postMessage(next)
    } catch (error) {
      failed = true
      console.warn(
        `[shop-sandbox] cannot save the data in browser storage (${(error as Error).name}); the sandbox goes on in memory and changes will not survive a reload`,
      )
    }
  }

  await serialized(async () => {
    await catchUp()
    if (revision === 0) await save()
  })
  const unsubscribe = store.subscribe(() => {
    if (applying) return
    if (!changed) {
      changed = true
      // A change made outside a request (reset(), restore()) is saved under the lock too.
      queueMicrotask(() => {
        if (changed && !stopped) void serialized(async () => (changed ? save() : undefined))
      })
    }
  })
  channel.onmessage = (event: MessageEvent<number>) => {
    if (typeof event.data === 'number' && event.data > revision && !stopped)
      void serialized(catchUp)
  }
  return {
    stop() {
      stopped = true
      unsubscribe()
      channel.close()
      database.close()
    },
    exclusive<T>(run: () => Promise<T>): Promise<T> {
      return serialized(async () => {
        await catchUp()
        try {
          return await run()
        } finally {
          if (changed) await save()
        }
      })
    },
  }
}

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1)
    request.onupgradeneeded = () => request.result.createObjectStore(STORE)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
}

async function read(database: IDBDatabase, catalog: Catalog, key: string): Promise<Saved | null> {
  const value = await new Promise<unknown>((resolve, reject) => {
    const request = database.transaction(STORE, 'readonly').objectStore(STORE).get(key)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
  if (value === undefined) return null
  const saved = value as Partial<Saved>
  const check = checkSnapshot(catalog, saved.snapshot)
  if (saved.version !== 1 || typeof saved.revision !== 'number' || !check.ok) {
    console.warn(
      `[shop-sandbox] ignoring invalid saved data under "${key}"; starting from the seed`,
    )
    return null
  }
  return { version: 1, revision: saved.revision, snapshot: check.document as Snapshot }
}

function write(database: IDBDatabase, key: string, saved: Saved): Promise<void> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readwrite')
    transaction.objectStore(STORE).put(saved, key)
    transaction.oncomplete = () => resolve()
    transaction.onerror = () => reject(transaction.error)
    transaction.onabort = () =>
      reject(transaction.error ?? new DOMException('aborted', 'AbortError'))
  })
}
