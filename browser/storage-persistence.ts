import { ApiError } from '../contract/api-error.js'
import { failure } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import { checkSnapshot } from '../resources/document.js'
import type { Snapshot, Store } from '../db/store.js'
import type { Catalog } from '../resources/catalog.js'
import { DEFAULT_SCENARIO } from '../state/scenarios.js'

/**
 * What is kept: the data with its id sequences, a revision every save increases, and the
 * scenario the data belong to (none in saves made before it was kept: \`default\`).
 */
interface Saved {
  version: 1
  revision: number
  snapshot: Snapshot
  scenario: string
}

/** The sandbox's scenario, as persistence sees it. */
export interface PersistedScenario {
  /** The one it is in now: saved with its data. */
  current(): string
  /**
   * The one this page asked for (its address's \`?scenario=\`, or the option), or null: saved
   * data of another scenario give way to it (a link opens the app in that state), and are
   * kept when they belong to it (a reload keeps what was written in it).
   */
  chosen: string | null
  /**
   * Puts the sandbox in a scenario but for its data (saved data of another tab's switch are
   * loaded next): its name, overrides and settings, its own data made (a reset returns to them).
   */
  follow(name: string): Promise<unknown>
  /** Its scenario, overrides and settings now: the function puts them back. */
  hold(): () => void
}

/** The browser side of a persisted store: stop, and run a write with every tab in step. */
export interface StoragePersistence {
  /** Stops saving and listening. */
  stop(): void
  /**
   * Runs a write request as the only writer among the tabs (the Web Locks API): the newest
   * saved data is loaded first, and the answer is given only once the IndexedDB transaction
   * holding its change has committed. When it cannot commit (quota, storage turned off), the
   * change is undone and the answer is 503 / 50300: a 2xx always means stored (issue 30).
   */
  write(run: () => Promise<ApiResponse>): Promise<ApiResponse>
}

const DATABASE = 'shop-sandbox'
const STORE = 'data'

/**
 * Keeps a store in IndexedDB across reloads and in step across tabs. IndexedDB, not
 * `localStorage`: a tab's `localStorage` copy of another tab's write arrives late (Chromium
 * syncs it between processes asynchronously), so a tab could write on stale data; IndexedDB
 * transactions always read what was committed, and a `strict` transaction is on disk when it
 * completes. Writes run one tab at a time under a Web Lock; after each, the other tabs hear of
 * it on a BroadcastChannel and load it.
 */
export async function persistInStorage(
  store: Store,
  catalog: Catalog,
  key: string,
  scenario: PersistedScenario,
): Promise<StoragePersistence> {
  const database = await openDatabase()
  const locks = (globalThis.navigator as Navigator | undefined)?.locks
  const lockName = `shop-sandbox:${key}`
  const channel = new BroadcastChannel(lockName)
  let revision = 0
  let stopped = false
  let warned = false

  const serialized = <T>(run: () => Promise<T>): Promise<T> =>
    locks ? (locks.request(lockName, run) as Promise<T>) : run()

  /**
   * Takes saved data as this tab's (stored already: not tracked), in their scenario: another
   * tab's switch was followed by its data alone, and this tab went on saving them under its own.
   */
  const load = async (saved: Saved) => {
    if (saved.scenario !== scenario.current()) await scenario.follow(saved.scenario)
    store.untracked(() => store.restore(saved.snapshot))
    revision = saved.revision
  }
  /** Loads the saved data when it is newer than what this tab has. */
  const catchUp = async () => {
    const saved = await read(database, catalog, key)
    if (saved && saved.revision > revision) await load(saved)
  }
  /** Saves this tab's data as the next revision, and tells the other tabs; throws when it cannot. */
  const save = async () => {
    const next = revision + 1
    await write(database, key, {
      version: 1,
      revision: next,
      snapshot: store.snapshot(),
      scenario: scenario.current(),
    })
    revision = next
    channel.postMessage(next)
  }

  const warn = (error: unknown) => {
    if (!warned)
      console.warn(
        `[shop-sandbox] cannot save the data in browser storage (${(error as Error).name}); writes are refused (503) until it can`,
      )
    warned = true
  }
  store.track()
  try {
    await serialized(async () => {
      const saved = await read(database, catalog, key)
      if (saved && (scenario.chosen === null || saved.scenario === scenario.chosen))
        await load(saved)
      else {
        // Nothing saved, or saved in another scenario than the one asked for: this page's data
        // are saved (as the next revision: other tabs load them).
        revision = saved?.revision ?? 0
        await save()
      }
    })
  } catch (error) {
    // Storage refuses even the first save (a full quota): the sandbox starts from the seed,
    // and each write gets 503 until storage takes it.
    warn(error)
  }
  store.takeChanges()
  const unsubscribe = store.subscribe(() => {
    // A change outside a request (reset(), restore()) is saved under the lock too.
    queueMicrotask(() => {
      if (stopped) return
      void serialized(async () => {
        if (store.takeChanges().length === 0) return
        try {
          await save()
        } catch (error) {
          warn(error)
        }
      })
    })
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
    write(run) {
      return serialized(async () => {
        await catchUp()
        store.takeChanges()
        const held = scenario.hold()
        const answer = await run()
        const changes = store.takeChanges()
        if (changes.length === 0) return answer
        try {
          await save()
          return answer
        } catch (error) {
          // Undone whole: its data, and what a switch or reset changes besides (the scenario,
          // the overrides, the settings).
          store.undo(changes)
          held()
          warn(error)
          return failure(
            ApiError.of(
              'serviceUnavailable',
              `browser storage cannot be written: ${(error as Error).name}: ${(error as Error).message}`,
            ),
          )
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

/** What is stored under \`key\`, unchecked. */
function readRaw(database: IDBDatabase, key: string): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const request = database.transaction(STORE, 'readonly').objectStore(STORE).get(key)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
}

async function read(database: IDBDatabase, catalog: Catalog, key: string): Promise<Saved | null> {
  const value = await readRaw(database, key)
  if (value === undefined) return null
  const saved = value as Partial<Saved>
  const check = checkSnapshot(catalog, saved.snapshot)
  if (saved.version !== 1 || typeof saved.revision !== 'number' || !check.ok) {
    console.warn(
      `[shop-sandbox] ignoring invalid saved data under "${key}"; starting from the seed`,
    )
    return null
  }
  return {
    version: 1,
    revision: saved.revision,
    snapshot: check.document as Snapshot,
    scenario: typeof saved.scenario === 'string' ? saved.scenario : DEFAULT_SCENARIO,
  }
}

/**
 * The scenario of the data saved under \`key\` (unchecked: the data are checked when loaded), or
 * null when nothing is saved: a page that names none starts in it.
 */
export async function savedScenario(key: string): Promise<string | null> {
  const database = await openDatabase()
  try {
    const saved = (await readRaw(database, key)) as Partial<Saved> | undefined
    if (saved?.version !== 1) return null
    return typeof saved.scenario === 'string' ? saved.scenario : DEFAULT_SCENARIO
  } finally {
    database.close()
  }
}

/** Stores `saved`; resolves once the transaction has committed, durably (`strict`). */
function write(database: IDBDatabase, key: string, saved: Saved): Promise<void> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readwrite', { durability: 'strict' })
    transaction.objectStore(STORE).put(saved, key)
    transaction.oncomplete = () => resolve()
    transaction.onerror = () => reject(transaction.error)
    transaction.onabort = () =>
      reject(transaction.error ?? new DOMException('aborted', 'AbortError'))
  })
}
