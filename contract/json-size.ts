/** JSON nested deeper than this is refused (a request body 400 / 40004 before it is parsed, C3). */
export const MAX_JSON_DEPTH = 64

/**
 * What a parsed JSON value costs in memory, estimated from its shape rather than its text: an
 * empty object takes some 60 bytes of heap whatever its JSON (`{}`, two characters), so a
 * budget counted in JSON characters lets `[{},{},…]` take seven times what it was allowed.
 * Walked without recursion (any depth), stopping early past `maxDepth`.
 */
export function jsonFootprint(
  value: unknown,
  maxDepth = Number.POSITIVE_INFINITY,
): { bytes: number; tooDeep: boolean } {
  let bytes = 0
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current === 'string') bytes += STRING + current.length
    else if (typeof current === 'number') bytes += NUMBER
    else if (typeof current === 'object' && current !== null) {
      if (depth > maxDepth) return { bytes, tooDeep: true }
      if (Array.isArray(current)) {
        bytes += ARRAY + SLOT * current.length
        for (const item of current) stack.push([item, depth + 1])
      } else {
        for (const key in current) {
          bytes += PROPERTY + STRING + key.length
          stack.push([(current as Record<string, unknown>)[key], depth + 1])
        }
        bytes += OBJECT
      }
    }
  }
  return { bytes, tooDeep: false }
}

/** V8's sizes on 64-bit, rounded up (measured: 349,000 `{}` in an array took 22.3 MB). */
const OBJECT = 56
const ARRAY = 32
const SLOT = 8
const PROPERTY = 16
const STRING = 16
const NUMBER = 16

/**
 * What keeps a value from being JSON, or null when it is JSON: the first value JSON has no
 * place for (a bigint, a function, `undefined` in an array, NaN, a Date, a class instance, a
 * cycle), named by its path, e.g. `a bigint at .items[2].qty`. Overrides made in code are
 * checked with it, so an answer that could not be sent is refused when it is made.
 */
export function notJson(value: unknown): string | null {
  // Each value with where it was found (its parent's entry and its key), the path written out
  // only for the value that is not JSON: a wide object costs no string per key.
  type Entry = { value: unknown; parent: Entry | null; key: string | number }
  const stack: Entry[] = [{ value, parent: null, key: '' }]
  const open = new Set<object>()
  const at = (entry: Entry) => {
    let path = ''
    for (let step: Entry | null = entry; step?.parent; step = step.parent)
      path = `${typeof step.key === 'number' ? `[${step.key}]` : `.${step.key}`}${path}`
    return path === '' ? '' : ` at ${path}`
  }
  while (stack.length > 0) {
    const entry = stack.pop()!
    const current = entry.value
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${current}${at(entry)} is not a JSON number`
      continue
    }
    if (current === undefined) return `undefined${at(entry)} is not JSON`
    if (typeof current !== 'object') return `a ${typeof current}${at(entry)} is not JSON`
    if (open.has(current)) return `a cycle${at(entry)} is not JSON`
    open.add(current)
    if (Array.isArray(current)) {
      // An undefined item would be sent as null, which is not what was given.
      current.forEach((item, index) => stack.push({ value: item, parent: entry, key: index }))
      continue
    }
    const prototype = Object.getPrototypeOf(current)
    if (prototype !== Object.prototype && prototype !== null)
      return `a ${prototype?.constructor?.name ?? 'class instance'}${at(entry)} is not JSON`
    for (const key of Object.keys(current)) {
      const item = (current as Record<string, unknown>)[key]
      // An undefined property is left out by JSON, as the answer would leave it out.
      if (item !== undefined) stack.push({ value: item, parent: entry, key })
    }
  }
  return null
}
