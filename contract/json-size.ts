/** JSON nested deeper than this is refused (a request body 400 / 40004 before it is parsed, C3). */
export const MAX_JSON_DEPTH = 64

/**
 * Keys (object members) an API request's body may hold: more is 413 / 41300 before it is parsed
 * (C3): V8 makes a new shape or dictionary entry for each key it has not seen, so a megabyte of
 * them held the event loop many times what the API's own fields take (docs/security.md). Keys
 * are counted in all the body's objects: a list of 5,000 points `{ x, y }` is 10,000. The control
 * API's bodies (an override's answer, a data document) are not API requests: bounded by size.
 */
export const MAX_BODY_KEYS = 10_000

/**
 * What a parsed JSON value costs in memory, estimated from its shape rather than its text: an
 * empty object takes some 60 bytes of heap whatever its JSON (`{}`, two characters), so a
 * budget counted in JSON characters lets `[{},{},…]` take seven times what it was allowed.
 * Walked without recursion (any depth), stopping early past `maxDepth`, and past `maxBytes`
 * (`over`): an array's slots are counted before its items are walked, so a sparse array made in
 * code (`a.length = 2 ** 32 - 1`, no memory, billions of holes) is over at once, not walked.
 */
export function jsonFootprint(
  value: unknown,
  maxDepth = Number.POSITIVE_INFINITY,
  maxBytes = Number.POSITIVE_INFINITY,
): { bytes: number; tooDeep: boolean; over: boolean } {
  let bytes = 0
  // Objects and arrays still to walk, with their depths: two stacks, no pair made per value,
  // and strings and numbers counted where they are met (350,000 `{}` were some 0.3 s of garbage).
  const values: object[] = []
  const depths: number[] = []
  const count = (item: unknown, depth: number) => {
    if (typeof item === 'string') bytes += STRING + item.length
    else if (typeof item === 'number') bytes += NUMBER
    else if (typeof item === 'object' && item !== null) {
      values.push(item)
      depths.push(depth)
    }
  }
  count(value, 1)
  while (values.length > 0) {
    const current = values.pop()!
    const depth = depths.pop()!
    if (depth > maxDepth) return { bytes, tooDeep: true, over: false }
    if (Array.isArray(current)) {
      bytes += ARRAY + SLOT * current.length
      if (bytes > maxBytes) return { bytes, tooDeep: false, over: true }
      for (const item of current) count(item, depth + 1)
    } else {
      for (const key in current) {
        bytes += PROPERTY + STRING + key.length
        count((current as Record<string, unknown>)[key], depth + 1)
        if (bytes > maxBytes) return { bytes, tooDeep: false, over: true }
      }
      bytes += OBJECT
    }
    if (bytes > maxBytes) return { bytes, tooDeep: false, over: true }
  }
  return { bytes, tooDeep: false, over: bytes > maxBytes }
}

/** V8's sizes on 64-bit, rounded up (measured: 349,000 `{}` in an array took 22.3 MB). */
const OBJECT = 56
const ARRAY = 32
const SLOT = 8
const PROPERTY = 16
const STRING = 16
const NUMBER = 16

/** Values (each place a shared one appears counted) {@link notJson} walks at most. */
const MAX_PLACES = 10_000_000

/**
 * What keeps a value from being JSON, or null when it is JSON: the first value JSON has no
 * place for (a bigint, a function, `undefined` in an array, NaN, a Date, a class instance, a
 * cycle), named by its path, e.g. `a bigint at .items[2].qty`. Overrides made in code are
 * checked with it, so an answer that could not be sent is refused when it is made; a
 * `condition` (a body to match) has no undefined property either.
 */
export function notJson(value: unknown, { condition = false } = {}): string | null {
  // Each value with where it was found (its parent's entry and its key), the path written out
  // only for the value that is not JSON: a wide object costs no string per key.
  type Entry = { value: unknown; parent: Entry | null; key: string | number; depth: number }
  const stack: Entry[] = [{ value, parent: null, key: '', depth: 1 }]
  // A cycle is a value among its own ancestors: looked for up the chain (at most MAX_JSON_DEPTH
  // long), not in a set of every object seen (350,000 `{}` made that set ~0.4 s of a request).
  const cycles = (entry: Entry) => {
    for (let up = entry.parent; up; up = up.parent) if (up.value === entry.value) return true
    return false
  }
  const at = (entry: Entry) => {
    let path = ''
    for (let step: Entry | null = entry; step?.parent; step = step.parent)
      path = `${typeof step.key === 'number' ? `[${step.key}]` : `.${step.key}`}${path}`
    return path === '' ? '' : ` at ${path}`
  }
  // Shared values are walked once per place they appear (as JSON writes them): a value built to
  // share itself over and over is refused past this many places, not walked for ever.
  let places = 0
  while (stack.length > 0) {
    const entry = stack.pop()!
    if (++places > MAX_PLACES)
      return `a value of more than ${MAX_PLACES} parts is not JSON the sandbox takes`
    const current = entry.value
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${current}${at(entry)} is not a JSON number`
      continue
    }
    if (current === undefined) return `undefined${at(entry)} is not JSON`
    if (typeof current !== 'object') return `a ${typeof current}${at(entry)} is not JSON`
    if (cycles(entry)) return `a cycle${at(entry)} is not JSON`
    // Deeper is not looked into: every caller refuses it for its depth (so a cycle below is too).
    if (entry.depth > MAX_JSON_DEPTH) continue
    const depth = entry.depth + 1
    if (Array.isArray(current)) {
      // An undefined item would be sent as null, which is not what was given.
      current.forEach((item, index) =>
        stack.push({ value: item, parent: entry, key: index, depth }),
      )
      continue
    }
    const prototype = Object.getPrototypeOf(current)
    if (prototype !== Object.prototype && prototype !== null)
      return `a ${prototype?.constructor?.name ?? 'class instance'}${at(entry)} is not JSON`
    for (const key of Object.keys(current)) {
      const item = (current as Record<string, unknown>)[key]
      // An undefined property is left out by JSON, as the answer would leave it out; in a
      // `condition`, left out, `{ n: undefined }` matched any body.
      if (item !== undefined) stack.push({ value: item, parent: entry, key, depth })
      else if (condition)
        return `undefined${at({ value: item, parent: entry, key, depth })} is no value a body has (a condition on it would match any)`
    }
  }
  return null
}
