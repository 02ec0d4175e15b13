import type * as z from 'zod'

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
}

/** `path: reason` for one zod issue, e.g. `items[0].quantity: must be at least 1`. */
export function describeIssue(issue: z.core.$ZodIssue, root = 'body'): string {
  const path = issue.path.length === 0 ? root : formatPath(issue.path)
  return `${path}: ${describeReason(issue)}`
}

/** `items[0].quantity` from `['items', 0, 'quantity']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
    '',
  )
}

function describeReason(issue: z.core.$ZodIssue): string {
  if ('input' in issue && issue.input === undefined && issue.code !== 'custom') return 'is required'
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${typeNames[issue.expected] ?? issue.expected}`
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
      return `must be one of ${issue.values.map(String).join(', ')}`
    default:
      return issue.message
  }
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
