import type * as z from 'zod'
import { MAX_PROBLEMS, problemList } from './api-error.js'

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
  record: 'an object',
  null: 'null',
}

/**
 * `schema.safeParse(value)`, parsed again with zod's `reportInput` only when it fails, so each
 * issue carries the value it refused (the messages quote it). zod 4 takes a slower path for a
 * parse given any context, measured 2.1x to 5x on the shop's bodies and records, for what only a
 * failure reads.
 */
export function safeParseReporting<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  const result = schema.safeParse(value)
  return result.success ? result : schema.safeParse(value, { reportInput: true })
}

/**
 * `path: reason` for each problem of one zod issue, e.g. `items[0].quantity: must be at least 1`:
 * usually one, one per key for unknown keys.
 */
export function describeIssues(issue: z.core.$ZodIssue, root = 'body'): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map(
      (key) => `${formatPath([...issue.path, key]) || root}: is not a known field`,
    )
  }
  return [describeIssue(issue, root)]
}

/** `path: reason` for one zod issue, e.g. `items[0].quantity: must be at least 1`. */
export function describeIssue(issue: z.core.$ZodIssue, root = 'body'): string {
  if (issue.code === 'invalid_union') {
    const chosen = closestBranch(issue)
    if (chosen) return describeIssue({ ...chosen, path: [...issue.path, ...chosen.path] }, root)
  }
  if (issue.code === 'unrecognized_keys') {
    // At most MAX_PROBLEMS of them written out (300,000 unknown keys were an 11.9 MB message).
    const shown = issue.keys.slice(0, MAX_PROBLEMS)
    return problemList(
      describeIssues({ ...issue, keys: shown }, root),
      issue.keys.length - shown.length,
    )
  }
  const path = issue.path.length === 0 ? root : formatPath(issue.path)
  return `${path}: ${describeReason(issue)}`
}

/**
 * One issue per field and kind: zod may report a bound twice (an integer's own safe range, then
 * the schema's), and a message should say it once: the tighter (an id of 2^53 was told "at most
 * 9007199254740991", and then 2^53 − 1 "at most 2147483647").
 */
export function distinctIssues<T extends z.core.$ZodIssue>(issues: readonly T[]): T[] {
  const kept = new Map<string, T>()
  for (const issue of issues) {
    const key = `${issue.code}\u0000${formatPath(issue.path)}`
    const before = kept.get(key)
    if (before === undefined || tighter(issue, before)) kept.set(key, issue)
  }
  return [...kept.values()]
}

/** Whether `issue` states a tighter bound than `than`, of the same kind. */
function tighter(issue: z.core.$ZodIssue, than: z.core.$ZodIssue): boolean {
  if (issue.code === 'too_big' && than.code === 'too_big')
    return Number(issue.maximum) < Number(than.maximum)
  if (issue.code === 'too_small' && than.code === 'too_small')
    return Number(issue.minimum) > Number(than.minimum)
  return false
}

/** `items[0].quantity` from `['items', 0, 'quantity']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
    '',
  )
}

/**
 * The issue of a union's branch that says most about the value: a branch whose type matched
 * but whose rules did not (`delay: must be at most 60000`), rather than the branches whose type
 * did not match at all. Null when every branch failed on the type alone: the union's expected
 * types are listed instead.
 */
function closestBranch(issue: z.core.$ZodIssue & { code: 'invalid_union' }) {
  const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? []
  const typed = branches.filter(
    (branch) =>
      branch.length > 0 && !branch.every((one) => one.code === 'invalid_type' && !one.path.length),
  )
  if (typed.length === 0) return null
  // The branch that went deepest into the value before failing, then the one with fewest problems.
  typed.sort(
    (a, b) =>
      Math.max(...b.map((one) => one.path.length)) - Math.max(...a.map((one) => one.path.length)) ||
      a.length - b.length,
  )
  return typed[0]![0]!
}

/** zod's own wording (`Invalid input: …`, `Too small: …`) as opposed to a message a schema gave. */
const DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized|Expected)/

function describeReason(issue: z.core.$ZodIssue): string {
  if ('input' in issue && issue.input === undefined && issue.code !== 'custom') return 'is required'
  // A message the schema wrote in words wins over the generic reason.
  if (issue.code !== 'custom' && issue.message && !DEFAULT_MESSAGE.test(issue.message))
    return issue.message
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${typeNames[issue.expected] ?? issue.expected}`
    case 'invalid_union': {
      const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? []
      const expected = [
        ...new Set(
          branches.flatMap((branch) =>
            branch.flatMap((one) =>
              one.code === 'invalid_type' ? [typeNames[one.expected] ?? one.expected] : [],
            ),
          ),
        ),
      ]
      return expected.length > 0 ? `must be ${orList(expected)}` : 'is not valid here'
    }
    case 'too_small':
      return `must ${bound(issue.origin, 'at least', Number(issue.minimum), issue.inclusive ?? true)}`
    case 'too_big':
      return `must ${bound(issue.origin, 'at most', Number(issue.maximum), issue.inclusive ?? true)}`
    case 'invalid_format':
      if (issue.format === 'email') return 'must be a valid e-mail address'
      if (issue.format === 'regex' && 'pattern' in issue)
        return `must match ${String(issue.pattern)}`
      if (issue.format === 'datetime') return 'must be an ISO 8601 UTC timestamp with milliseconds'
      return `must be a valid ${issue.format}`
    case 'not_multiple_of':
      return Number(issue.divisor) === 0.01
        ? 'must have at most 2 decimals'
        : `must be a multiple of ${issue.divisor}`
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map(String).join(', ')}`
    case 'invalid_key':
      return 'has a key that is not allowed'
    default:
      return issue.message
  }
}

/** `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

function bound(
  origin: string,
  word: 'at least' | 'at most',
  limit: number,
  inclusive: boolean,
): string {
  if (origin === 'string') return `be ${word} ${limit} character${limit === 1 ? '' : 's'} long`
  if (origin === 'array') return `have ${word} ${limit} item${limit === 1 ? '' : 's'}`
  if (!inclusive) return `be ${word === 'at least' ? 'greater' : 'less'} than ${limit}`
  return `be ${word} ${limit}`
}
