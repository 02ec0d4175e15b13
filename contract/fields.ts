import * as z from 'zod'
import { documented } from './registry.js'

/**
 * The largest id (2^31 − 1, a 32-bit signed integer as many real APIs use): documents with
 * larger ids are refused, so an id sequence never leaves the integers every client handles.
 */
export const MAX_ID = 2 ** 31 - 1

/** A record id: a positive integer up to {@link MAX_ID}, assigned by the sandbox (CONTRACT B1). */
export const idSchema = z.int().min(1).max(MAX_ID)

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-03-04T05:06:07.000Z`. */
export const timestampSchema = z.iso.datetime({ precision: 3 })

/**
 * A valid e-mail address: zod's, but with domain labels as DNS has them (a letter or digit at
 * each end: `ab@x-.com` is no address). Linear: labels are separated by the dots they end with.
 */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/

/** An e-mail address (see {@link EMAIL_PATTERN}); the document states that very pattern. */
export const emailSchema = () => z.email({ pattern: EMAIL_PATTERN })

/** Text schemas trimmed before their length is checked, with the pattern of what they take. */
export const trimmedPatterns = new WeakMap<z.ZodType, string>()

/**
 * Text trimmed before its length is checked (CONTRACT B1's names: `'  ab  '` is `ab`). Its
 * OpenAPI schema says so with a pattern of what is taken, trimmed length `min`-`max`, instead
 * of `minLength`/`maxLength`, which would count the spaces (`'  '` is too short, not 2 long).
 */
export function trimmedText(min: 1 | 2, max: number): z.ZodString {
  const schema = z.string().trim().min(min).max(max)
  trimmedPatterns.set(
    schema,
    min === 2
      ? `^\\s*\\S[\\s\\S]{0,${max - 2}}\\S\\s*$`
      : `^\\s*\\S(?:[\\s\\S]{0,${max - 2}}\\S)?\\s*$`,
  )
  return schema
}

/** A field no client can write. */
export function readOnly<T extends z.ZodType>(schema: T, description?: string): T {
  return documented(schema, { readOnly: true, ...(description ? { description } : {}) })
}

/**
 * `record` (values by name: query parameters, headers) as a caller gives it, checked before zod
 * walks it: at most `max` names (70,000 were each checked and made an issue of, holding the
 * process seconds, before a count after the walk refused them), and never `__proto__`: zod's
 * record parse drops that key (assigned, it would set the record's prototype), and a condition
 * dropped matches more than it says (`{"query":{"__proto__":"x"}}` matched every request).
 * Every record of names a caller gives is made with it, so no caller has to remember either.
 */
export function holdingNames<T extends z.ZodType<Record<string, unknown>>>(
  record: T,
  max: number,
  noun: string,
) {
  return z.preprocess<unknown, T, z.input<T>>((input, context) => {
    if (typeof input !== 'object' || input === null) return input
    const count = Object.keys(input).length
    if (count > max)
      context.addIssue({
        code: 'custom',
        message: `must name at most ${max} ${noun} (got ${count})`,
      })
    else if (Object.hasOwn(input, '__proto__'))
      context.addIssue({
        code: 'custom',
        path: ['__proto__'],
        message: 'is not a name it can hold',
      })
    return input
  }, record)
}
