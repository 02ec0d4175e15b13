import { checkSnapshot } from '../db/document.js'
import type { DbSnapshot, Store } from '../db/store.js'

/** What is kept in browser storage: the data and its id sequences. */
interface Saved {
  version: 1
  snapshot: DbSnapshot
}

/**
 * Keeps a store in `localStorage` across reloads, and in step across tabs: every change is
 * saved (batched per task), and a change saved by another tab (the `storage` event) is loaded.
 * Returns the function that stops it.
 */
export function persistInStorage(
  store: Store,
  key: string,
  storage: Storage = localStorage,
): () => void {
  const saved = read(storage, key)
  if (saved) store.restore(saved)
  let applying = false
  let pending = false
  const save = () => {
    pending = false
    try {
      storage.setItem(
        key,
        JSON.stringify({ version: 1, snapshot: store.snapshot() } satisfies Saved),
      )
    } catch (error) {
      console.warn(
        `[shop-sandbox] cannot save the data in browser storage (${(error as Error).name}); changes will not survive a reload`,
      )
      stopSaving()
    }
  }
  const stopSaving = store.subscribe(() => {
    if (applying || pending) return
    pending = true
    queueMicrotask(save)
  })
  if (!saved) save()
  const onStorage = (event: StorageEvent) => {
    if (event.key !== key || event.newValue === null) return
    const incoming = parse(event.newValue)
    if (!incoming) return
    applying = true
    try {
      store.restore(incoming)
    } finally {
      applying = false
    }
  }
  window.addEventListener('storage', onStorage)
  return () => {
    stopSaving()
    window.removeEventListener('storage', onStorage)
  }
}

function read(storage: Storage, key: string): DbSnapshot | null {
  const text = storage.getItem(key)
  if (text === null) return null
  const snapshot = parse(text)
  if (!snapshot) {
    console.warn(
      `[shop-sandbox] ignoring invalid saved data under "${key}"; starting from the seed`,
    )
    storage.removeItem(key)
  }
  return snapshot
}

function parse(text: string): DbSnapshot | null {
  try {
    const saved = JSON.parse(text) as Partial<Saved>
    if (saved.version !== 1 || !saved.snapshot?.nextIds) return null
    const check = checkSnapshot(saved.snapshot)
    return check.ok ? (check.document as DbSnapshot) : null
  } catch {
    return null
  }
}
