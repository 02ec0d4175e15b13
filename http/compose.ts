/**
 * A list of steps run in order, each handed the request's context and `next` (Hono's
 * `compose`, without its promise per step): a step answers itself, or returns what `next(c)`
 * returns (after doing something around it, if it likes). One `next` serves every request; the
 * context keeps the place, so running the list makes no closure and no promise: an answer made
 * at once stays synchronous all the way back.
 */
export interface Step<C, R> {
  /** What the step does, in a word (`authenticate`): the list reads as the request's path. */
  readonly name: string
  run(c: C, next: (c: C) => R): R
}

/** A context the runner can walk: `step` is its place in the list. */
export interface Walked {
  step: number
}

/** Runs `steps` in order for a context; past the last one, `end`. */
export function compose<C extends Walked, R>(
  steps: readonly Step<C, R>[],
  end: (c: C) => R,
): (c: C) => R {
  const next = (c: C): R => {
    const step = steps[c.step++]
    return step === undefined ? end(c) : step.run(c, next)
  }
  return (c) => {
    c.step = 0
    return next(c)
  }
}
