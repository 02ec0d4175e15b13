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

/**
 * Texts of frozen values longer than {@link LARGE} characters (an override's answer of 850 kB,
 * answered and listed again and again), kept as long as the value is, outside the generations:
 * one would push out every record's text.
 */
const largeTexts = new WeakMap<object, string>()
const LARGE = 64 * 1024

/** The JSON text of a frozen (hence deep-frozen: see `deepFreeze`) plain object, computed once while kept. */
function frozenText(value: object): string {
  let text = young.get(value) ?? largeTexts.get(value)
  if (text !== undefined) return text
  text = old.get(value) ?? JSON.stringify(value)
  if (text.length > LARGE) {
    largeTexts.set(value, text)
    return text
  }
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
  let keys = 0
  for (const key in value) {
    // A wide object that is no stored record (a client's JSON: an override's answer, a body
    // echoed) holds no record whose text is kept: the engine's own walk is the same bytes, and
    // some ten times faster than this one's (58,000 keys: ~5 against ~100 ms).
    if (++keys > WIDE) return JSON.stringify(value)
    if (!Object.hasOwn(value, key)) continue
    const item = jsonText((value as Record<string, unknown>)[key])
    if (item === undefined) continue
    if (text.length > 1) text += ','
    text += `${keyText(key)}:${item}`
  }
  return `${text}}`
}

/**
 * {@link jsonText} of a data document (`{ users: [...], …, nextIds }`), made item by item and
 * yielding after every `slice` items of its lists: the whole document of 200,000 records (52 MB)
 * held the event loop ~1.4 s in one piece. The texts kept of records are used; those it makes
 * are not kept (a whole document would push out the records pages are made of).
 */
export function* documentText(
  document: Readonly<Record<string, unknown>>,
  slice: number,
): Generator<void, string> {
  let text = '{'
  let items = 0
  for (const key in document) {
    if (!Object.hasOwn(document, key)) continue
    const value = document[key]
    let member: string | undefined
    if (Array.isArray(value)) {
      // Joined a slice at a time: one join of the whole list would be a piece of its own.
      member = '['
      let parts: string[] = []
      for (const item of value as unknown[]) {
        parts.push(keptText(item) ?? 'null')
        if (++items % slice === 0) {
          member += (member.length > 1 ? ',' : '') + parts.join(',')
          parts = []
          yield
        }
      }
      if (parts.length > 0) member += (member.length > 1 ? ',' : '') + parts.join(',')
      member += ']'
    } else member = jsonText(value)
    if (member === undefined) continue
    if (text.length > 1) text += ','
    text += `${keyText(key)}:${member}`
  }
  return `${text}}`
}

/** The text kept of a frozen value, else `JSON.stringify`'s, not kept. */
function keptText(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null) {
    const kept = young.get(value) ?? old.get(value) ?? largeTexts.get(value)
    if (kept !== undefined) return kept
  }
  return JSON.stringify(value)
}

/** Keys past which an object that is not frozen is left to `JSON.stringify` whole. */
const WIDE = 64

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
