/**
 * A list of steps run in order, each handed the request's context and `next` (Hono's
 * `compose`, without its promise per step): a step answers itself, or returns what `next(c)`
 * returns (after doing something around it, if it likes). The chain is linked once, when the
 * list is composed: each step's `next` is the same function for every request, so running the
 * list makes no closure and no promise (an answer made at once stays synchronous all the way
 * back), and each call site always calls the same step, which the engine can inline.
 */
export interface Step<C, R> {
  /** What the step does, in a word (`authenticate`): the list reads as the request's path. */
  readonly name: string
  run(c: C, next: (c: C) => R): R
}

/** Runs `steps` in order for a context; past the last one, `end`. */
export function compose<C, R>(steps: readonly Step<C, R>[], end: (c: C) => R): (c: C) => R {
  let next = end
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index]!
    const after = next
    next = (c) => step.run(c, after)
  }
  return next
}
