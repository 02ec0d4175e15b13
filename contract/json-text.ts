/**
 * JSON text of response data, the same bytes as `JSON.stringify`, with the text of each frozen
 * object (a stored record: records are deep-frozen and replaced, never changed) computed once
 * and reused: a page of 20 records is then 20 lookups and a join instead of 20 serialisations.
 */

/** Characters of record text kept; past it, the older half is let go (a two-generation cache). */
export const JSON_CACHE_CHARACTERS = 8 * 1024 * 1024

let young = new Map<object, string>()
let old = new Map<object, string>()
let youngCharacters = 0

/** The JSON text of a frozen (hence deep-frozen: see `deepFreeze`) plain object, computed once while kept. */
function frozenText(value: object): string {
  let text = young.get(value)
  if (text !== undefined) return text
  text = old.get(value) ?? JSON.stringify(value)
  if (youngCharacters + text.length > JSON_CACHE_CHARACTERS / 2) {
    old = young
    young = new Map()
    youngCharacters = 0
  }
  young.set(value, text)
  youngCharacters += text.length
  return text
}

/**
 * `JSON.stringify(value)` for JSON data (what the API answers: plain objects, arrays, strings,
 * numbers, booleans, null), reusing the text of frozen objects. Anything else (a `toJSON`, a
 * class instance) is left to `JSON.stringify` itself. Undefined for what `JSON.stringify` skips.
 */
export function jsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) {
    let text = '['
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ','
      text += jsonText(value[index]) ?? 'null'
    }
    return `${text}]`
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value)
    return JSON.stringify(value)
  if (Object.isFrozen(value)) return frozenText(value)
  let text = '{'
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const item = jsonText((value as Record<string, unknown>)[key])
    if (item === undefined) continue
    if (text.length > 1) text += ','
    text += `${keyText(key)}:${item}`
  }
  return `${text}}`
}

/** The JSON text of the keys answers use again and again (`list`, `total`, …), kept. */
const keyTexts = new Map<string, string>()

function keyText(key: string): string {
  let text = keyTexts.get(key)
  if (text === undefined) {
    text = JSON.stringify(key)
    // Bounded: keys come from data too (a client's JSON), which must not grow it.
    if (keyTexts.size < 256) keyTexts.set(key, text)
  }
  return text
}
