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
  const stack: Array<[unknown, string]> = [[value, '']]
  const open = new Set<object>()
  const at = (path: string) => (path === '' ? '' : ` at ${path}`)
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${current}${at(path)} is not a JSON number`
      continue
    }
    if (current === undefined) return `undefined${at(path)} is not JSON`
    if (typeof current !== 'object') return `a ${typeof current}${at(path)} is not JSON`
    if (open.has(current)) return `a cycle${at(path)} is not JSON`
    open.add(current)
    if (Array.isArray(current)) {
      // An undefined item would be sent as null, which is not what was given.
      current.forEach((item, index) => stack.push([item, `${path}[${index}]`]))
      continue
    }
    const prototype = Object.getPrototypeOf(current)
    if (prototype !== Object.prototype && prototype !== null)
      return `a ${prototype?.constructor?.name ?? 'class instance'}${at(path)} is not JSON`
    for (const key of Object.keys(current)) {
      const item = (current as Record<string, unknown>)[key]
      // An undefined property is left out by JSON, as the answer would leave it out.
      if (item !== undefined) stack.push([item, `${path}.${key}`])
    }
  }
  return null
}
