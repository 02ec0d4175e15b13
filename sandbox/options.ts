import { landed, OptionsError } from '../contract/option-spec.js'
import { trimSlashes } from '../contract/params.js'
import { EARLIEST, LATEST } from '../contract/iso-time.js'
import { closest, distance } from 'fastest-levenshtein'
import type { ApiDefinition } from '../resources/api.js'
import { MAX_RESOURCES } from '../resources/api.js'
import { Catalog } from '../resources/catalog.js'
import type { AnyResourceDefinition, Named } from '../resources/define.js'
import { resolveSeedOptions } from '../resources/seed.js'
import type { SandboxLimits } from '../state/limits.js'
import { heapDefaults } from '../state/limits.js'
import type { RuntimeConfig } from '../state/runtime-config.js'
import { defaultRuntimeConfig, withSettings } from '../state/runtime-config.js'
import type { OptionName, OptionsOf, OptionValue } from './option-table.js'
import { flagName, optionTable, parseOption, takenFlagNames } from './option-table.js'

/**
 * Options of a sandbox: every option of the option table whose scope is `sandbox` (see the
 * reference docs, or `shop-sandbox --help`), plus a record count per resource of the API by
 * its name (`users: 200`).
 */
export type SandboxOptions<A extends ApiDefinition = ApiDefinition> = {
  [K in OptionsOf<'sandbox'>]?: OptionValue<K>
} & CountOptions<A>

/** A count option per resource of a known API (`users: 200`); none for an API not known by type. */
type CountOptions<A extends ApiDefinition> = string extends A['resources'][number]['name']
  ? unknown
  : Partial<Named<A['resources'], 'count'>>

export interface ResolvedOptions {
  seed: number
  /** Records seeded per resource. */
  counts: Record<string, number>
  /** The API served: its resources, then the sandbox's own. */
  catalog: Catalog
  origin: string | null
  basePath: string
  tokenTtl: number
  control: boolean
  /** MSW only: unanswered requests under the base path go on to the network. */
  passthrough: boolean
  /** Where the OpenAPI document is served, or null when it is not. */
  openApiPath: string | null
  maxSandboxes: number
  /** The scenario the default sandbox starts in (CONTRACT C5). */
  scenario: string
  limits: SandboxLimits
  config: RuntimeConfig
  now: () => number
  onUnexpectedError: (error: unknown) => void
}

/** The options a sandbox takes, by name (the table's `sandbox` scope). */
const sandboxOptionNames = (Object.keys(optionTable) as OptionName[]).filter(
  (name) => optionTable[name].scope === 'sandbox',
)

/** An option's value as given, or its default from the table. */
function valueOr<K extends OptionName>(given: Record<string, unknown>, name: K) {
  return (given[name] ?? optionTable[name].default) as OptionValue<K> & {}
}

/** `; did you mean port?` for a misspelt option (any scope) or resource count; else where to look. */
function suggestion(name: string, catalog: Catalog): string {
  const near = nearName(name, [...Object.keys(optionTable), ...catalog.names])
  return near ? `; did you mean ${near}?` : ' (see the options reference, or shop-sandbox --help)'
}

/** The known name a mistyped one most likely meant (a letter or two off), or null. */
export function nearName(name: string, known: readonly string[]): string | null {
  if (known.length === 0) return null
  const near = closest(name, [...known])
  return distance(name.toLowerCase(), near.toLowerCase()) <= (name.length <= 3 ? 1 : 2)
    ? near
    : null
}

/**
 * The options given, each validated against its schema (only those given are parsed), and a
 * key that is no option and no resource of the API refused: a TypeError naming every bad one.
 */
function validOptions(options: object, catalog: Catalog): Record<string, unknown> {
  if (typeof options !== 'object' || options === null)
    throw new OptionsError('sandbox', 'options: must be an object')
  const values: Record<string, unknown> = {}
  const problems: string[] = []
  // In the table's order (settings first), then the rest: the same message for the same mistakes.
  const given = Object.keys(options)
  const order = [
    ...sandboxOptionNames.filter((name) => given.includes(name)),
    ...given.filter((name) => !sandboxOptionNames.includes(name as OptionName)),
  ]
  for (const name of order) {
    const value = (options as Record<string, unknown>)[name]
    if (value === undefined) continue
    if (!sandboxOptionNames.includes(name as OptionName)) {
      if (catalog.names.includes(name)) values[name] = value
      // An option of the server (port, data, …) given to a sandbox, or of the CLI alone: said so.
      else if (Object.hasOwn(optionTable, name))
        problems.push(
          (optionTable as Record<string, { scope: string }>)[name]!.scope === 'cli'
            ? `${name}: is an option of the command line only (--${name})`
            : `${name}: is an option of the server (createSandboxServer, the CLI), not of a sandbox`,
        )
      else problems.push(`${name}: is not an option${suggestion(name, catalog)}`)
      continue
    }
    const parsed = parseOption(name as OptionName, value)
    if ('problems' in parsed) problems.push(...parsed.problems)
    else values[name] = parsed.value
  }
  if (problems.length > 0) throw new OptionsError('sandbox', `${problems.join('; ')}`)
  return values
}

/**
 * Why a resource's name cannot be its record count's option, or null: a resource's count is the
 * option (and the flag) named after it, so no resource may take an option's name, its flag, or
 * a flag the command line takes for itself (`help`, `-p`). The CLI asks before it makes its
 * flags; a sandbox when it is made.
 */
export function countNameProblem(catalog: Catalog): string | null {
  for (const name of catalog.names)
    if (takenFlagNames.has(name) || takenFlagNames.has(flagName(name)))
      return `${name}.name: ${name} is ${Object.hasOwn(optionTable, name) || name === 'resources' ? `an option of the sandbox${name === 'api' || name === 'resources' ? '' : ` (--${flagName(name)})`}` : `a flag the command line takes for itself (${name.length === 1 ? '-' : '--'}${name})`}, and a resource's record count is the option named after it; pick another name`
  return null
}

/**
 * Fills in defaults and validates; throws an Error whose message names every bad option (and a
 * TypeError naming the resource and field of any mistake in the API's definitions).
 */
export function resolveOptions(options: SandboxOptions & { api: ApiDefinition }): ResolvedOptions {
  const { api, resources } = options as { api: ApiDefinition; resources?: unknown }
  if (resources !== undefined && !Array.isArray(resources))
    throw new OptionsError('sandbox', 'resources: must be a list of resource definitions')
  if (Array.isArray(resources) && resources.length > MAX_RESOURCES)
    throw new OptionsError(
      'sandbox',
      `resources: must list at most ${MAX_RESOURCES.toLocaleString('en')} resources`,
    )
  const catalog = Catalog.of(api, (resources ?? []) as readonly AnyResourceDefinition[])
  const taken = countNameProblem(catalog)
  if (taken) throw new TypeError(taken)
  const given = validOptions(options, catalog)
  const clock = given.clock as (() => Date | number) | undefined
  const now = clock ? () => clockTime(clock) : Date.now
  // Asked once now, so that a clock giving no time is refused here, not at the first write.
  if (clock) now()
  // Every row with a landing place, given or at its default, where it lands (issue 44).
  // The memory bounds not given are shares of the heap limit, at most their in-process defaults.
  const { config, openApiPath, ...landedRows } = landed(optionTable, {
    ...heapDefaults('inProcess'),
    ...given,
  }) as Pick<
    ResolvedOptions,
    'tokenTtl' | 'control' | 'passthrough' | 'maxSandboxes' | 'limits' | 'scenario'
  > & { config: Partial<RuntimeConfig>; openApiPath: string | false }
  return {
    ...landedRows,
    ...seedOptions(catalog, given, (options as { counts?: unknown }).counts),
    catalog,
    ...parseBaseUrl(valueOr(given, 'baseUrl')),
    openApiPath: openApiPath === false ? null : openApiPath,
    config: withSettings(defaultRuntimeConfig, config),
    now,
    onUnexpectedError:
      (given.onUnexpectedError as ((error: unknown) => void) | undefined) ??
      ((error) => console.error('[shop-sandbox] unexpected error:', error)),
  }
}

/**
 * The seed and every resource's count, from `counts` and the per-resource count options. Names
 * are read from the `counts` given (`raw`): its schema's copy drops an own `__proto__`.
 */
function seedOptions(catalog: Catalog, given: Record<string, unknown>, raw: unknown) {
  const counts = (given.counts ?? {}) as Record<string, number>
  for (const name of Object.keys(raw ?? {})) {
    if (!catalog.names.includes(name))
      throw new OptionsError(
        'sandbox',
        `counts.${name}: no resource named ${name} (resources: ${catalog.names.join(', ')})`,
      )
  }
  const requested: Record<string, unknown> = { ...counts, seed: given.seed }
  for (const name of catalog.names) requested[name] ??= given[name]
  const { seed, ...resolved } = resolveSeedOptions(catalog, requested, (name) =>
    Object.hasOwn(counts, name) ? `counts.${name}` : name,
  )
  return { seed, counts: resolved }
}

/** Splits a base URL into an origin (null when relative) and a path without trailing slash. */
export function parseBaseUrl(baseUrl: string): { origin: string | null; basePath: string } {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl)
  const refuse = (problem: string) =>
    new OptionsError('sandbox', `baseUrl: ${problem}, got '${baseUrl.slice(0, 200)}'`)
  if (!absolute && baseUrl !== '' && !baseUrl.startsWith('/'))
    throw refuse("must be absolute (https://api.example.com) or start with '/'")
  if (absolute && !/^https?:/i.test(baseUrl))
    throw refuse('must be an http:// or https:// URL (MSW and the server answer HTTP)')
  let url: URL
  try {
    url = new URL(baseUrl || '/', 'http://relative.invalid')
  } catch {
    throw refuse('is not a valid URL')
  }
  if (url.search || url.hash) throw refuse('must not have a query or fragment')
  const basePath = trimSlashes(url.pathname)
  return { origin: absolute ? url.origin : null, basePath }
}

/** The time a `clock` option gives, in milliseconds; a TypeError naming it when it gives none. */
function clockTime(clock: () => Date | number): number {
  const given = clock() as unknown
  const time = given instanceof Date || typeof given === 'number' ? Number(given) : Number.NaN
  // Years 0 to 9999: the range a timestamp's four-digit year writes (Date's own, ±8.64e15 ms,
  // wrote `+275760-09-13…`, which the sandbox's own data document then refused).
  if (!Number.isFinite(time) || time < EARLIEST || time > LATEST)
    throw new OptionsError(
      'sandbox',
      `clock: must return a Date or milliseconds in years 0 to 9999; it returned ${typeof given === 'string' ? JSON.stringify(given.slice(0, 40)) : String(given)}`,
    )
  return time
}
