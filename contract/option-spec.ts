import type * as z from 'zod'

/**
 * One option of the sandbox, the server or the command line, declared once as a row: its
 * schema (which validates it, and whose bounds the flag's message states), its default and
 * unit, where it lands in the resolved options, its flag and one line of help. The rows live
 * beside what they bound (state/limits.ts holds the limits') and the option table
 * (sandbox/option-table.ts) gathers them; types, validation, flags, `--help`, the reference
 * docs and every message naming a flag derive from them.
 */

/**
 * Where an option applies: `sandbox` every sandbox (`createSandbox`, `setupSandbox`,
 * `startSandbox`, the server), `server` the Node server (`createSandboxServer`, `serve`), `cli`
 * the command line only.
 */
export type OptionScope = 'sandbox' | 'server' | 'cli'

/**
 * How a flag's text becomes a value before the schema checks it; `path` names a file or module
 * the command line reads itself (its content is then checked as the option).
 */
export type FlagKind =
  'integer' | 'number' | 'bytes' | 'text' | 'path' | 'boolean' | 'choice' | 'list'

export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  /** Validates the option and documents it (built on first use: most sandboxes give few options). */
  schema: () => S
  scope: OptionScope
  /** One line of help: `--help`, the reference docs. */
  help: string
  /** The default (none when undefined). */
  default?: z.output<S>
  /** The default in words, when it is computed (`a quarter of the heap limit`) or not a plain value. */
  defaultText?: string
  /** What a number counts, for the docs (`bytes`, `ms`, `requests`…). */
  unit?: string
  /**
   * Where the value (given, else the default) lands in the resolved options, as a dotted path
   * (`limits.overrides.count`); none for what the resolver reads itself (the seed, the clock).
   */
  lands?: string
  /** Its command-line flag; none for what only code can give (functions, objects). */
  flag?: {
    kind: FlagKind
    /** A one-letter alias, e.g. `p` for `--port`. */
    alias?: string
    /** The value's name in `--help` and the docs, e.g. `<file>`. */
    value?: string
    /** Values a `choice` takes. */
    choices?: readonly string[]
    /** The flag's default in `--help` when it differs from the option's (`$PORT or 4010`). */
    defaultText?: string
  }
}

/** An option's spec, typed by its schema and its scope. */
export const option = <S extends z.ZodType, const Scope extends OptionScope>(
  spec: OptionSpec<S> & { scope: Scope },
): OptionSpec<S> & { scope: Scope } => spec

/** An option's flag name: `journal-body-bytes` for `journalBodyBytes` (messages write `--` before it). */
export function flagName(option: string): string {
  return option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}

/** The flag of an option, as messages name it: `--max-overrides` for `maxOverrides`. */
export function flagOf(option: string): string {
  return `--${flagName(option)}`
}

/** The values of rows with a `lands` path, placed there (given values first, else defaults). */
export function landed(
  rows: Readonly<Record<string, OptionSpec>>,
  given: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, row] of Object.entries(rows)) {
    if (row.lands === undefined) continue
    const value = given[name] ?? row.default
    if (value === undefined) continue
    const path = row.lands.split('.')
    let target = out
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>
    target[path.at(-1)!] = value
  }
  return out
}

/**
 * An option refused by its value, before anything starts (`seed: -1`, `--scenario emtpy`). Its
 * message begins `Invalid sandbox options: ` or `Invalid server options: `, then `detail`. It
 * holds no field of its own, so it equals the TypeError it was (`toThrow(new TypeError(…))`).
 * The command line exits 2 on one, as on a flag it refuses itself.
 */
export class OptionsError extends TypeError {
  constructor(owner: 'sandbox' | 'server', detail: string, options?: ErrorOptions) {
    super(`Invalid ${owner} options: ${detail}`, options)
  }

  /** The message without its `Invalid … options: ` prefix. */
  get detail(): string {
    return this.message.slice(this.message.indexOf(': ') + 2)
  }
}
