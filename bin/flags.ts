import bytes from 'bytes'
import type { Options } from 'yargs'
import type * as z from 'zod'
import { describeIssue, safeParseReporting } from '../contract/issues.js'
import { clip, integerProblem } from '../contract/params.js'
import type { OptionSpec } from '../sandbox/option-table.js'
import { flagName } from '../sandbox/option-table.js'

/**
 * A flag of the option table as yargs takes it: its type, default and help from the table, and
 * a parser that turns its text into the option's value, or throws one line naming the flag and
 * saying what it takes (`--port must be an integer from 0 to 65535, got 'abc'`), in words made
 * from the option's own schema.
 */
export function flagOf(name: string, spec: OptionSpec): Options {
  const flag = spec.flag!
  const help = spec.help
  const shown = flag.defaultText ?? spec.defaultText
  const common: Options = {
    describe: help,
    ...(flag.alias ? { alias: flag.alias } : {}),
    ...(shown ? { defaultDescription: shown } : {}),
  }
  switch (flag.kind) {
    case 'boolean':
      return { ...common, type: 'boolean', default: spec.default as boolean }
    case 'choice':
      // Checked by the parser (yargs' own `choices` message is three lines of its own words).
      return {
        ...common,
        type: 'string',
        describe: `${help} [${flag.choices!.join(' | ')}]`,
        default: spec.default as string,
        coerce: parser(name, spec),
      }
    case 'list':
      return { ...common, type: 'string', array: true, coerce: listParser(name, spec) }
    default: {
      // Read as text (sizes like 16KB, exact messages for bad numbers); shown as it is typed.
      const text =
        spec.default === undefined || shown
          ? undefined
          : flag.kind === 'bytes'
            ? bytes.format(spec.default as number)
            : String(spec.default)
      const options: Options = { ...common, type: 'string', coerce: parser(name, spec) }
      if (text !== undefined) Object.assign(options, { default: text, defaultDescription: text })
      return options
    }
  }
}

/** `[min, max]` of a number schema (zod keeps its bounds), optional or defaulted or not. */
function boundsOf(schema: z.ZodType): [number, number] {
  let inner = schema as unknown as { unwrap?: () => unknown; minValue?: number; maxValue?: number }
  while (inner.minValue === undefined && typeof inner.unwrap === 'function')
    inner = inner.unwrap() as typeof inner
  return [inner.minValue!, inner.maxValue!]
}

/** Turns a flag's text into its value, or throws the flag's one-line message. */
export function parser(name: string, spec: OptionSpec): (raw: unknown) => unknown {
  const flag = `--${flagName(name)}`
  return (raw) => {
    if (raw === undefined) return undefined
    if (Array.isArray(raw)) throw new Error(`${flag} was given ${raw.length} times; give it once`)
    const text = String(raw)
    const schema = spec.schema()
    switch (spec.flag!.kind) {
      case 'path':
        return text
      case 'integer': {
        const [min, max] = boundsOf(schema)
        const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN
        if (!Number.isSafeInteger(value) || !schema.safeParse(value).success)
          throw new Error(integerProblem(flag, text, min, max))
        return value
      }
      case 'number': {
        const [min, max] = boundsOf(schema)
        const value = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN
        if (!schema.safeParse(value).success)
          throw new Error(`${flag} must be a number from ${min} to ${max}, got '${clip(text)}'`)
        return value
      }
      case 'bytes': {
        const [min, max] = boundsOf(schema)
        const value = /^\d+(?:\.\d+)?\s*(?:b|kb|mb|gb)?$/i.test(text) ? bytes.parse(text) : null
        if (value === null || !Number.isSafeInteger(value) || !schema.safeParse(value).success)
          throw new Error(
            `${flag} must be a size from ${bytes.format(min)} to ${bytes.format(max)} (like 16kb or 4mb), got '${clip(text)}'`,
          )
        return value
      }
      default: {
        const parsed = safeParseReporting(schema, text)
        if (!parsed.success) {
          const reason = describeIssue({ ...parsed.error.issues[0]!, path: [] }, flag).replace(
            `${flag}: `,
            '',
          )
          throw new Error(`${flag} ${reason}, got '${clip(text)}'`)
        }
        return parsed.data
      }
    }
  }
}

/** A repeatable flag: each value checked, the list against the option's schema. */
function listParser(name: string, spec: OptionSpec): (raw: unknown) => unknown {
  const flag = `--${flagName(name)}`
  return (raw) => {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String)
    if (values.length === 0 || values.some((value) => value.trim() === ''))
      throw new Error(`${flag} needs a value (${spec.flag!.value ?? 'a value'})`)
    const schema = spec.schema()
    // Options whose value is a list are checked value by value here; others (`--counts`) later.
    if (!schema.safeParse([]).success) return values
    for (const value of values) {
      if (schema.safeParse(value).success) continue // a word standing for the whole list ('all')
      const checked = schema.safeParse([value])
      if (!checked.success) {
        const issue = checked.error.issues.find((one) => one.code !== 'invalid_union')
        const message = issue?.message ?? describeIssue(checked.error.issues[0]!)
        throw new Error(`${flag} ${message}, got '${clip(value)}'`)
      }
    }
    return values
  }
}

/** The counts of `--counts name=N` (repeatable), checked in form; names are checked by the sandbox. */
export function countsOf(
  values: readonly string[] | undefined,
  names: readonly string[],
): Record<string, number> | undefined {
  if (!values) return undefined
  const counts: Record<string, number> = {}
  for (const value of values) {
    const match = /^([a-z][a-zA-Z0-9-]*)=(\d{1,7})$/.exec(value)
    if (!match)
      throw new Error(
        `--counts takes <name>=<count> with a count from 0, like ${names.at(-1)}=40, got '${clip(value)}'`,
      )
    if (!names.includes(match[1]!))
      throw new Error(
        `--counts ${value}: no resource named ${match[1]} (resources: ${names.join(', ')})`,
      )
    if (Object.hasOwn(counts, match[1]!))
      throw new Error(
        `--counts ${value}: ${match[1]} is given twice (--counts ${match[1]}=${counts[match[1]!]}); give it once`,
      )
    counts[match[1]!] = Number(match[2])
  }
  return counts
}

/** An integer flag in [min, max] whose bounds come from elsewhere (a resource's count). */
export function integerFlag(name: string, min: number, max: number) {
  return (raw: unknown): number => {
    const text = String(raw)
    const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(integerProblem(`--${name}`, text, min, max))
    }
    return value
  }
}
