import * as z from 'zod'
import { once } from '../contract/once.js'
import { describeIssues, distinctIssues, safeParseReporting } from '../contract/issues.js'
import type { ProgressReporter } from '../db/progress.js'
import type { ApiDefinition } from '../resources/api.js'
import { MAX_SCENARIOS } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { DEFAULT_SEED, seedLimits } from '../resources/seed.js'
import type { OptionScope, OptionSpec } from '../contract/option-spec.js'
import { option } from '../contract/option-spec.js'
import { limitOptions } from '../state/limits.js'
import type { OverrideInput } from '../state/overrides/index.js'
import type { ScenarioDefinition } from '../state/scenarios.js'
import type { Delay } from '../state/runtime-config.js'
import { defaultRuntimeConfig, runtimeConfigPatchSchema } from '../state/runtime-config.js'
import { flagOf } from '../contract/option-spec.js'
import { timeoutsHelp } from '../server/timeouts.js'

/**
 * Every option of the sandbox, the server and the command line, each declared once: its
 * schema (which validates it, and whose bounds the flag's message states), its default, its
 * flag and one line of help. `SandboxOptions` and `SandboxServerOptions`, option validation,
 * the yargs flags of `shop-sandbox serve`, `--help` and the reference docs' tables all derive
 * from this table (issue 31).
 */

const integer = (min: number, max: number) => () => z.int().min(min).max(max)

/** The highest TCP port: `--port`, a `--cors-origin`'s port and a `Host`'s port are held to it. */
export const MAX_PORT = 65_535

/** A port as a `Host` or an origin writes it (leading zeros and all): 0-MAX_PORT, or none. */
export function portInRange(port: string | undefined): boolean {
  return port === undefined || port.length === 0 || (port.length <= 5 && Number(port) <= MAX_PORT)
}

const originMessage = `must be an origin: a scheme, a host and maybe a port of 0-${MAX_PORT} (http://localhost:5173), or * alone (no wildcard inside a name: give each origin)`
const settings = () => runtimeConfigPatchSchema().shape
const fn =
  <T>(what: string) =>
  () =>
    z.custom<T>((value) => typeof value === 'function', `must be a function (${what})`)

export const optionTable = {
  seed: option({
    schema: integer(...seedLimits),
    scope: 'sandbox',
    help: 'Seed of the generated data: the same seed and counts give byte-identical data everywhere',
    default: DEFAULT_SEED,
    flag: { kind: 'integer' },
  }),
  counts: option({
    // Each count's range is its resource's (resolveSeedOptions): at least 2 users, …
    schema: () => z.record(z.string(), z.int()),
    scope: 'sandbox',
    help: "Records to seed per resource by name (the API's resources also have a flag each: --users 200)",
    defaultText: "each resource's own count",
    flag: { kind: 'list', value: '<name>=<count>' },
  }),
  resources: option({
    schema: () =>
      z.custom<readonly AnyResourceDefinition[]>(
        (value) => Array.isArray(value),
        'must be a list of resource definitions (defineResource)',
      ),
    scope: 'sandbox',
    help: "Resources of your real API served beside the API's own (a module whose default export is a list of defineResource definitions)",
    defaultText: 'none',
    flag: { kind: 'list', value: '<module>' },
  }),
  baseUrl: option({
    schema: () => z.string().max(2000),
    scope: 'sandbox',
    help: 'Where the API lives: relative (/api) or absolute (https://api.example.com/v1), not under /__sandbox; requests elsewhere are not touched',
    default: '',
    defaultText: 'the root',
  }),
  tokenTtl: option({
    schema: integer(1, 31_536_000),
    scope: 'sandbox',
    lands: 'tokenTtl',
    help: 'Lifetime of session tokens from POST /sessions, in seconds',
    default: 3600,
    flag: { kind: 'integer' },
  }),
  delay: option({
    schema: () => settings().delay as z.ZodType<Delay, Delay | string>,
    scope: 'sandbox',
    lands: 'config.delay',
    help: 'Latency of every API response: 150 (ms) or 100-400 (uniform, seeded)',
    default: defaultRuntimeConfig.delay,
    flag: { kind: 'text', value: '<ms|min-max>' },
  }),
  errorRate: option({
    schema: () => settings().errorRate,
    scope: 'sandbox',
    lands: 'config.errorRate',
    help: 'Share (0-1) of API requests answered 500 / 50000 or 503 / 50300',
    default: defaultRuntimeConfig.errorRate,
    flag: { kind: 'number' },
  }),
  dropRate: option({
    schema: () => settings().dropRate,
    scope: 'sandbox',
    lands: 'config.dropRate',
    help: 'Share (0-1) of API requests whose connection is dropped (reset, or closed after the answers before it)',
    default: defaultRuntimeConfig.dropRate,
    flag: { kind: 'number' },
  }),
  strict: option({
    schema: () => settings().strict,
    scope: 'sandbox',
    lands: 'config.strict',
    help: 'Unknown query parameters are 400, unknown or read-only body fields 422',
    default: defaultRuntimeConfig.strict,
    flag: { kind: 'boolean' },
  }),
  auth: option({
    schema: () => settings().auth,
    scope: 'sandbox',
    lands: 'config.auth',
    help: 'Require bearer tokens (--no-auth: requests without a token act as an admin)',
    default: defaultRuntimeConfig.auth,
    flag: { kind: 'boolean' },
  }),
  control: option({
    schema: () => z.boolean(),
    scope: 'sandbox',
    lands: 'control',
    help: 'Serve the control API under /__sandbox (--no-control: it answers 404)',
    default: true,
    flag: { kind: 'boolean' },
  }),
  passthrough: option({
    schema: () => z.boolean(),
    scope: 'sandbox',
    lands: 'passthrough',
    help: "MSW only (browser, tests): a request under the base path that no route and no override answers goes on to the network (MSW's passthrough()), so an app can be half mocked; the Node server forwards with proxy",
    default: false,
  }),
  openApiPath: option({
    schema: () =>
      z.union([
        z.literal(false),
        z.string().regex(/^\/[^?#\s]*$/, 'must be a path starting with /, like /openapi.json'),
      ]),
    scope: 'sandbox',
    lands: 'openApiPath',
    help: 'Where the OpenAPI document is served (false: not at all); not on a route of the API nor under /__sandbox',
    default: '/openapi.json' as string | false,
  }),
  maxSandboxes: option({
    schema: integer(1, 100_000),
    scope: 'sandbox',
    lands: 'maxSandboxes',
    help: 'Live X-Sandbox-Id sandboxes kept at most; the least recently used is dropped (while all are answering requests, a new one is 429 / 42900)',
    default: 1000,
    flag: { kind: 'integer' },
  }),
  ...limitOptions,
  overrides: option({
    schema: () =>
      z.custom<readonly OverrideInput[]>(
        (value) => Array.isArray(value),
        'must be a list of overrides',
      ),
    scope: 'sandbox',
    help: 'Overrides every sandbox starts with, again after a full reset (a JSON file holding an array, as POST /__sandbox/overrides takes)',
    defaultText: 'none',
    flag: { kind: 'path', value: '<file>' },
  }),
  scenario: option({
    schema: () =>
      z
        .string()
        .regex(
          /^[a-z0-9][a-z0-9-]{0,62}$/,
          'must be a scenario name: lower-case letters, digits and hyphens (like out-of-stock)',
        ),
    scope: 'sandbox',
    help: 'The scenario the sandbox starts in (and a reset returns to): its data, overrides and settings; GET /__sandbox/scenarios lists them',
    default: 'default',
    lands: 'scenario',
    flag: { kind: 'text', value: '<name>' },
  }),
  scenarios: option({
    schema: () =>
      z
        .custom<readonly ScenarioDefinition<never>[]>(
          (value) => Array.isArray(value),
          'must be a list of scenarios (defineScenario)',
        )
        // Counted before any is read: a list of a billion holes is cheap to make (C3).
        .refine(
          (list) => list.length <= MAX_SCENARIOS,
          `must hold at most ${MAX_SCENARIOS.toLocaleString('en')} scenarios`,
        ),
    scope: 'sandbox',
    help: "Scenarios besides the API's own (a module whose default export is a list of defineScenario definitions, or a folder of <name>.json files)",
    defaultText: "the API's own",
    flag: { kind: 'path', value: '<module|folder>' },
  }),
  clock: option({
    schema: fn<() => Date | number>('returning a Date or milliseconds'),
    scope: 'sandbox',
    help: 'The clock for timestamps and token expiry (asked once when the sandbox is made: one that gives no time, or one outside years 0 to 9999, is refused)',
    defaultText: 'the real one',
  }),
  onUnexpectedError: option({
    schema: fn<(error: unknown) => void>('called with the error'),
    scope: 'sandbox',
    help: 'Called with anything unexpected a request throws (it is answered 500)',
    defaultText: 'console.error',
  }),
  onProgress: option({
    schema: fn<ProgressReporter>('called with a phase and counts'),
    scope: 'sandbox',
    help: 'Hears how seeding and indexing advance (for a progress bar on big data sets)',
  }),
  api: option({
    schema: () =>
      z.custom<ApiDefinition>(
        (value) => typeof value === 'object' && value !== null,
        'must be an API definition (defineApi)',
      ),
    scope: 'sandbox',
    help: 'The API served instead of the package’s own (a module whose default export is a defineApi definition)',
    defaultText: 'the package’s own API',
    flag: { kind: 'path', value: '<module>' },
  }),
  port: option({
    schema: integer(0, MAX_PORT),
    scope: 'server',
    help: 'Port to listen on; 0 picks a free one',
    default: 4010,
    flag: { kind: 'integer', alias: 'p', defaultText: '$PORT or 4010' },
  }),
  host: option({
    schema: () => z.string().min(1).max(255),
    scope: 'server',
    help: 'Address to bind; anything but loopback prints a warning, since other machines can then reach the sandbox',
    default: '127.0.0.1',
    flag: { kind: 'text', value: '<address>' },
  }),
  basePath: option({
    schema: () =>
      z
        .string()
        .max(2000)
        // Segments of their own, no `.` or `..` (`/a/../b` was served as /b without a word).
        .regex(/^((\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)+\/?)?$/, 'must look like /api or /api/v1')
        .transform((path) => path.replace(/\/$/, '')),
    scope: 'server',
    help: 'Path prefix of the resources, e.g. /api → http://127.0.0.1:4010/api/users',
    default: '',
    defaultText: 'none',
    flag: { kind: 'text', value: '<path>' },
  }),
  data: option({
    schema: () => z.string().min(1),
    scope: 'server',
    help: 'Keep the data in this JSON file: loaded at start; a write is answered only once it is on disk',
    defaultText: 'none',
    flag: { kind: 'path', value: '<file>' },
  }),
  dataFormat: option({
    schema: () => z.enum(['pretty', 'compact']),
    scope: 'server',
    help: 'How the data file is written: pretty (2 spaces, as json-server writes db.json) or compact (one line)',
    default: 'pretty' as const,
    flag: { kind: 'choice', choices: ['pretty', 'compact'] },
  }),
  corsOrigin: option({
    schema: () =>
      z.array(
        z
          .string()
          .regex(
            /^(?:\*|[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[^\s/:?#[\]@*]+)(?::\d+)?\/?)$/i,
            originMessage,
          )
          .refine((origin) => portInRange(/:(\d+)\/?$/.exec(origin)?.[1]), originMessage),
      ),
    scope: 'server',
    help: "An origin allowed to call from a browser besides loopback ones (repeatable; '*': any, without cookies); others get 403 / 40300",
    defaultText: 'loopback origins',
    flag: { kind: 'list', value: '<origin>' },
  }),
  allowedHosts: option({
    schema: () =>
      z.union([
        z.literal('all'),
        z.array(
          z
            .string()
            .regex(
              /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/i,
              'must be a host name without scheme, port or path (app.local, 192.168.1.5), or all',
            ),
        ),
      ]),
    scope: 'server',
    help: 'A Host accepted besides loopback names and the bound address (repeatable; .example.com: it and every name under it; all: no check); others get 403 / 40300',
    defaultText: 'loopback names',
    flag: { kind: 'list', value: '<name>' },
  }),
  proxy: option({
    schema: () =>
      z
        .url({
          protocol: /^https?$/,
          error: 'must be an http:// or https:// URL, like https://staging.example.com/api',
        })
        .refine((url) => !/[?#]/.test(url), 'must not hold a query or fragment')
        .refine(
          (url) => !/^https?:\/\/[^/]*@/i.test(url),
          'must not carry a user or password (user:password@): fetch refuses them; give a token or a header instead',
        )
        .transform((url) => url.replace(/\/$/, '')),
    scope: 'server',
    help: 'Forward requests under the base path that no route and no override answers to this URL (the real API), and relay its answers; 502 / 50200 when unreachable',
    defaultText: 'none (404)',
    flag: { kind: 'text', value: '<url>' },
  }),
  proxyTimeout: option({
    schema: integer(1, 600_000),
    scope: 'server',
    help: 'Milliseconds the proxy target has to answer in full; past it 504 / 50400',
    default: 30_000,
    flag: { kind: 'integer', value: '<ms>' },
  }),
  record: option({
    schema: () => z.string().min(1),
    scope: 'server',
    help: 'Append each proxied exchange to this JSON file as an override, in the format --overrides loads (secrets left out; written atomically)',
    defaultText: 'none',
    flag: { kind: 'text', value: '<file>' },
  }),
  transport: option({
    schema: () => z.enum(['fast', 'msw']),
    scope: 'server',
    help: 'fast: the handlers straight from Node; msw: through MSW itself (getResponse; slower)',
    default: 'fast' as const,
    flag: { kind: 'choice', choices: ['fast', 'msw'] },
  }),
  inFlightBodyBytes: option({
    schema: () => z.int().min(1024),
    scope: 'server',
    help: "Bytes of request bodies, of the proxy target's answers and of answers over 64KB not yet sent, held in memory at once; past it a body or such an answer is refused 429 / 42900",
    defaultText: 'an eighth of the heap limit, at most 128MB',
  }),
  timeouts: option({
    schema: () =>
      z.strictObject({
        headersMs: z.int().min(1).optional(),
        requestMs: z.int().min(1).optional(),
        keepAliveMs: z.int().min(1).optional(),
        shutdownMs: z.int().min(0).optional(),
        stalledMs: z.int().min(1).optional(),
      }),
    scope: 'server',
    help: timeoutsHelp,
    defaultText: 'see each',
  }),
  log: option({
    schema: fn<(line: string) => void>('called with one line per request'),
    scope: 'server',
    help: 'Write a one-line log per request with this function',
    defaultText: 'no log (the CLI logs to stdout unless --quiet)',
  }),
  quiet: option({
    schema: () => z.boolean(),
    scope: 'cli',
    help: 'No request log',
    default: false,
    flag: { kind: 'boolean', alias: 'q' },
  }),
} as const

export type { OptionScope, OptionSpec } from '../contract/option-spec.js'
export type OptionName = keyof typeof optionTable
type Table = typeof optionTable

/** The names of the options in a scope. */
export type OptionsOf<Scope extends OptionScope> = {
  [K in OptionName]: Table[K]['scope'] extends Scope ? K : never
}[OptionName]

/** The options of one scope, as code gives them (each optional). */
export type ScopeOptions<Scope extends OptionScope> = {
  [K in OptionsOf<Scope>]?: OptionValue<K>
}

/**
 * The options of `scope` in `options` validated against their schemas (only those given);
 * a TypeError naming every bad one. Options of other scopes are left for their own check.
 */
export function validScope(
  options: Readonly<Record<string, unknown>>,
  scope: OptionScope,
  what: string,
): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [name, value] of Object.entries(options)) {
    const spec = (optionTable as Record<string, OptionSpec>)[name]
    if (value === undefined || spec?.scope !== scope) continue
    const parsed = parseOption(name as OptionName, value)
    if ('problems' in parsed) problems.push(...parsed.problems)
    else values[name] = parsed.value
  }
  if (problems.length > 0) throw new TypeError(`Invalid ${what} options: ${problems.join('; ')}`)
  return values
}

/** An option's value as its schema reads it, or the problems naming it (each bound said once). */
export function parseOption(
  name: OptionName,
  value: unknown,
): { value: unknown } | { problems: string[] } {
  const parsed = safeParseReporting(optionSchema[name](), value)
  if (parsed.success) return { value: parsed.data }
  return {
    problems: distinctIssues(parsed.error.issues).flatMap((issue) =>
      describeIssues({ ...issue, path: [name, ...issue.path] }, 'options'),
    ),
  }
}

/** The value an option takes in code (its schema's input). */
export type OptionValue<K extends OptionName> = z.input<ReturnType<Table[K]['schema']>>

/** Each option's schema, built on first use. */
export const optionSchema = Object.fromEntries(
  Object.entries(optionTable).map(([name, spec]) => [name, once(spec.schema as () => z.ZodType)]),
) as { readonly [K in OptionName]: () => ReturnType<Table[K]['schema']> }

import { flagName } from '../contract/option-spec.js'
export { flagName }

/** The command line's own flags and their one-letter aliases (yargs gives them). */
export const HELP_FLAGS = { help: 'h', version: 'v' } as const

/**
 * What a command-line flag is called, as a name of the option table, its flag (`max-overrides`),
 * a one-letter alias (`p`), or the command line's own (`help`, `h`): no resource may take one,
 * its record count being the flag named after it (`--help 3` printed the help, `-p` set the
 * port).
 */
export const takenFlagNames: ReadonlySet<string> = new Set([
  ...Object.entries(optionTable).flatMap(([name, spec]) => {
    const alias = (spec as { flag?: { alias?: string } }).flag?.alias
    return [name, flagName(name), ...(alias ? [alias] : [])]
  }),
  ...Object.entries(HELP_FLAGS).flat(),
  'resources',
])

/** An option's flag, for messages: `flag('allowedHosts')` is `--allowed-hosts`. */
export function flag(name: OptionName): string {
  return flagOf(name)
}
