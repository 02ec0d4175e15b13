/**
 * Reports progress of long data work (seeding, indexing, validating a data file), so a CLI
 * can show a bar. Called every few thousand records, never per record.
 */
export type ProgressReporter = (
  phase: 'generating' | 'indexing' | 'validating',
  done: number,
  total: number,
) => void

/** How many records pass between two reports. */
export const PROGRESS_STEP = 5000

/** Records of long data work done between two yields of the event loop (a slice: ~5-20 ms). */
export const SLICE = 1000

/**
 * Runs work that yields after each slice ({@link SLICE}), giving the event loop back between
 * slices (`setImmediate`; `setTimeout` in a browser): other requests and other sandboxes are
 * answered meanwhile. Its result, or what it threw.
 */
export async function inSlices<T>(work: Generator<void, T>): Promise<T> {
  for (;;) {
    sliceBegan = performance.now()
    const step = work.next()
    if (step.done) return step.value
    await givenBack()
  }
}

/**
 * How long a slice of records that each cost much (a seeder's, made by faker: ~0.1 ms, several
 * times that while the code is cold) runs before it yields ({@link sliceDue}).
 */
export const SLICE_MS = 8

/** When the slice {@link inSlices} runs now began. */
let sliceBegan = 0

/**
 * Whether work yielding after costly records has run its slice's time ({@link SLICE_MS}): the
 * clock is read every 64 records. 1,000 of a faker seeder's users, the first slice of the `big`
 * scenario with faker's code still cold, held the loop ~300 ms.
 */
export function sliceDue(done: number): boolean {
  return done % 64 === 0 && performance.now() - sliceBegan >= SLICE_MS
}

/**
 * How the loop is given back: Node's `setImmediate` (`setTimeout` in a browser) as this module
 * found it. A test's fake timers, installed later, never fire theirs: a switch to a big scenario
 * or a large body waiting its turn would wait for the test to advance its clock.
 */
const nextTurn: (run: () => void) => unknown =
  globalThis.setImmediate ?? globalThis.setTimeout.bind(globalThis)

/** Resolves once the event loop has run what was waiting. */
export function givenBack(): Promise<void> {
  return new Promise((resolve) => nextTurn(resolve))
}

/** Runs work that yields after each slice to its end at once (where nothing else may run meanwhile). */
export function whole<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next()
    if (step.done) return step.value
  }
}

/** Large texts made at once, at most, running and waiting their turn ({@link inTurn}). */
export const LARGE_TEXTS_AT_ONCE = 4

let turns: Promise<unknown> = Promise.resolve()
let taken = 0

/**
 * Runs work that makes a large text in slices after the one before it ends, or null when
 * {@link LARGE_TEXTS_AT_ONCE} are running or waiting already. In slices, many would be made side
 * by side (a hundred data documents of 52 MB: gigabytes); one at a time, memory holds one.
 */
export function inTurn<T>(work: () => Promise<T>): Promise<T> | null {
  if (taken >= LARGE_TEXTS_AT_ONCE) return null
  taken++
  const turn = turns.then(work).finally(() => taken--)
  turns = turn.catch(() => undefined)
  return turn
}
