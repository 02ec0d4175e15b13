import { ApiError } from './api-error.js'

/** A parameter failed: 400 / 40000, naming the parameter. */
export function invalidParameter(message: string): ApiError {
  return ApiError.of('invalidParameter', message)
}

/**
 * The single value of a query parameter, or undefined when absent.
 * A parameter given twice is a 400 (CONTRACT B3).
 */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name)
  if (values.length > 1) {
    throw invalidParameter(`${name} was given ${values.length} times; give it once`)
  }
  return values[0]
}

/** Rejects parameters outside `allowed` (strict mode), naming them. */
export function rejectUnknown(params: URLSearchParams, allowed: readonly string[]): void {
  const unknown = [...new Set(params.keys())].filter((name) => !allowed.includes(name))
  if (unknown.length > 0) {
    const list = unknown
      .slice(0, 10)
      .map((name) => `'${clip(name)}'`)
      .join(', ')
      .concat(unknown.length > 10 ? ` and ${unknown.length - 10} more` : '')
    const hint =
      allowed.length > 0 ? `; allowed here: ${allowed.join(', ')}` : '; this route takes none'
    throw invalidParameter(
      `unknown query parameter${unknown.length > 1 ? 's' : ''} ${list} (strict mode)${hint}`,
    )
  }
}

/**
 * The integer `raw` writes plainly, as every integer parameter and path id is written (`7`, not
 * `07`, `+7`, `7.0` or `7e0`; at most 16 digits), else NaN.
 */
export function plainInteger(raw: string): number {
  return /^(?:0|[1-9]\d{0,15})$/.test(raw) ? Number(raw) : Number.NaN
}

/**
 * Whether `raw` writes plainly a positive integer of 16 digits or more: past what a number holds
 * exactly when {@link plainInteger} does not read it.
 */
function isLongInteger(raw: string): boolean {
  return /^[1-9]\d{15,}$/.test(raw)
}

/** The id a path or an id filter gives past what a number holds exactly: no record has it. */
export const PAST_EVERY_ID = Number.MAX_VALUE

/**
 * The id `raw` writes plainly (a path's, an id filter's): a positive integer, one of more digits
 * than a number holds exactly being {@link PAST_EVERY_ID}; NaN for anything else.
 */
export function plainId(raw: string): number {
  const value = plainInteger(raw)
  if (Number.isSafeInteger(value) && value >= 1) return value
  return isLongInteger(raw) ? PAST_EVERY_ID : Number.NaN
}

/** An integer in [min, max] written plainly ({@link plainInteger}). */
export function integerParameter(name: string, raw: string, min: number, max: number): number {
  const value = plainInteger(raw)
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw invalidParameter(integerProblem(name, raw, min, max))
  return value
}

/** Why the text `raw` (a parameter's, a flag's) is not an integer in [min, max]. */
export function integerProblem(name: string, raw: string, min: number, max: number): string {
  // "1 or more" is not all the rule for a number past what a number holds: its bound is said.
  const rule = isLongInteger(raw)
    ? `must be an integer from ${min} to ${max}`
    : mustBeInteger(min, max)
  return `${name} ${rule}, got '${clip(raw)}'`
}

/**
 * The one wording of an integer range rule, for parameters, flags, options and definitions:
 * `must be an integer from 1 to 100`, or `… 2 or more` when nothing bounds it above.
 */
export function mustBeInteger(min: number, max: number): string {
  return `must be an integer ${max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`}`
}

/**
 * A value a caller gave in code (an option, a definition's field, what its function returned), as
 * a message shows it: its JSON, clipped (a string in double quotes, so `'3'` is not taken for
 * 3); its kind when it has none (a function, a bigint, a cycle, a throwing `toJSON`).
 */
export function shownValue(value: unknown): string {
  // A number as written (JSON would write NaN as null); what JSON cannot write, by its kind.
  if (typeof value === 'number') return String(value)
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
    return typeof value
  let text: string | undefined
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = typeof value
  }
  return clip(text, 100)
}

/**
 * What a caller's function (a seed generator, a rule, a scenario's data) threw, for a message:
 * `threw TypeError: …`, or what it threw shown when it is no Error (`threw null`).
 */
export function thrown(error: unknown): string {
  return `threw ${error instanceof Error ? `${error.name}: ${error.message}` : shownValue(error)}`
}

/** `text` without trailing slashes (a loop: `/\/+$/` backtracks over a run of them). */
export function trimSlashes(text: string): string {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 47 /* / */) end--
  return end === text.length ? text : text.slice(0, end)
}

/** Keeps echoed input short in messages. */
export function clip(value: string, length = 60): string {
  return value.length > length ? `${value.slice(0, length)}…` : value
}
