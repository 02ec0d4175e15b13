import * as z from 'zod'
import { once } from '../contract/once.js'
import { describeIssues, safeParseReporting } from '../contract/issues.js'
import type { ProgressReporter } from '../db/progress.js'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { DEFAULT_SEED, seedLimits } from '../resources/seed.js'
import { defaultLimits, limitBounds } from '../state/limits.js'
import type { OverrideInput } from '../state/overrides.js'
import type { Delay } from '../state/runtime-config.js'
import { defaultRuntimeConfig, runtimeConfigPatchSchema } from '../state/runtime-config.js'

/**
 * Every option of the sandbox, the server and the command line, each declared once: its
 * schema (which validates it, and whose bounds the flag's message states), its default, its
 * flag and one line of help. `SandboxOptions` and `SandboxServerOptions`, option validation,
 * the yargs flags of `shop-sandbox serve`, `--help` and the reference docs' tables all derive
 * from this table (issue 31).
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
const option = <S extends z.ZodType, const Scope extends OptionScope>(
  spec: OptionSpec<S> & { scope: Scope },
): OptionSpec<S> & { scope: Scope } => spec

const integer = (min: number, max: number) => () => z.int().min(min).max(max)
const bounded = (name: keyof typeof limitBounds) => {
  const [min, max] = limitBounds[name]
  return integer(min, max)
}
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
    schema: () => z.record(z.string(), z.int().min(0)),
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
    help: 'Lifetime of session tokens from POST /sessions, in seconds',
    default: 3600,
    flag: { kind: 'integer' },
  }),
  delay: option({
    schema: () => settings().delay as z.ZodType<Delay, Delay | string>,
    scope: 'sandbox',
    help: 'Latency of every API response: 150 (ms) or 100-400 (uniform, seeded)',
    default: defaultRuntimeConfig.delay,
    flag: { kind: 'text', value: '<ms|min-max>' },
  }),
  errorRate: option({
    schema: () => settings().errorRate,
    scope: 'sandbox',
    help: 'Share (0-1) of API requests answered 500 / 50000 or 503 / 50300',
    default: defaultRuntimeConfig.errorRate,
    flag: { kind: 'number' },
  }),
  dropRate: option({
    schema: () => settings().dropRate,
    scope: 'sandbox',
    help: 'Share (0-1) of API requests whose connection is reset',
    default: defaultRuntimeConfig.dropRate,
    flag: { kind: 'number' },
  }),
  strict: option({
    schema: () => settings().strict,
    scope: 'sandbox',
    help: 'Unknown query parameters are 400, unknown or read-only body fields 422',
    default: defaultRuntimeConfig.strict,
    flag: { kind: 'boolean' },
  }),
  auth: option({
    schema: () => settings().auth,
    scope: 'sandbox',
    help: 'Require bearer tokens (--no-auth: requests without a token act as an admin)',
    default: defaultRuntimeConfig.auth,
    flag: { kind: 'boolean' },
  }),
  control: option({
    schema: () => z.boolean(),
    scope: 'sandbox',
    help: 'Serve the control API under /__sandbox (--no-control: it answers 404)',
    default: true,
    flag: { kind: 'boolean' },
  }),
  passthrough: option({
    schema: () => z.boolean(),
    scope: 'sandbox',
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
    help: 'Where the OpenAPI document is served (false: not at all); not on a route of the API nor under /__sandbox',
    default: '/openapi.json' as string | false,
  }),
  maxSandboxes: option({
    schema: integer(1, 100_000),
    scope: 'sandbox',
    help: 'Live X-Sandbox-Id sandboxes kept at most; the least recently used is dropped',
    default: 1000,
    flag: { kind: 'integer' },
  }),
  journalSize: option({
    schema: bounded('journalSize'),
    scope: 'sandbox',
    help: "Requests kept in each sandbox's journal (0: no journal)",
    default: defaultLimits.journal.size,
    flag: { kind: 'integer' },
  }),
  journalBodyBytes: option({
    schema: bounded('journalBodyBytes'),
    scope: 'sandbox',
    help: 'Size of a request or response body the journal keeps, redacted, cut with a marker past it (0: none)',
    default: defaultLimits.journal.bodyBytes,
    flag: { kind: 'bytes' },
  }),
  journalBytes: option({
    schema: bounded('journalBytes'),
    scope: 'sandbox',
    help: "Size one sandbox's journal may take, bodies counted; the oldest entries go first",
    default: defaultLimits.journal.bytes,
    flag: { kind: 'bytes' },
  }),
  maxSessions: option({
    schema: bounded('maxSessions'),
    scope: 'sandbox',
    help: 'Live POST /sessions tokens per sandbox; past it a login gets 429 / 42900',
    default: defaultLimits.maxSessions,
    flag: { kind: 'integer' },
  }),
  sandboxesMemory: option({
    schema: bounded('sandboxesMemory'),
    scope: 'sandbox',
    help: 'Memory all X-Sandbox-Id sandboxes may hold together (estimated); the least recently used are dropped',
    default: defaultLimits.sandboxesMemory,
    defaultText: 'the server: a quarter of the heap limit, at most 512MB; in process 256MB',
    flag: { kind: 'bytes' },
  }),
  maxDocumentBytes: option({
    schema: bounded('maxDocumentBytes'),
    scope: 'sandbox',
    help: 'Largest PUT /__sandbox/db body (413 / 41300 past it)',
    default: defaultLimits.maxDocumentBytes,
    flag: { kind: 'bytes' },
  }),
  maxOverrides: option({
    schema: bounded('maxOverrides'),
    scope: 'sandbox',
    help: 'Overrides one sandbox keeps at most; adding one more is 429 / 42900',
    default: defaultLimits.overrides.count,
    flag: { kind: 'integer' },
  }),
  overridesBytes: option({
    schema: bounded('overridesBytes'),
    scope: 'sandbox',
    help: "Memory one sandbox's overrides may take (estimated); one larger alone is 413 / 41300, one that no longer fits 429 / 42900",
    default: defaultLimits.overrides.bytes,
    defaultText: 'the server: a sixty-fourth of the heap limit, at most 32MB; in process 16MB',
    flag: { kind: 'bytes' },
  }),
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
  clock: option({
    schema: fn<() => Date | number>('returning a Date or milliseconds'),
    scope: 'sandbox',
    help: 'The clock for timestamps and token expiry (asked once when the sandbox is made: one that gives no time is refused)',
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
    help: 'The API served instead of the Shop API (a module whose default export is a defineApi definition)',
    defaultText: 'the Shop API',
    flag: { kind: 'path', value: '<module>' },
  }),
  port: option({
    schema: integer(0, 65_535),
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
        .regex(/^((\/[A-Za-z0-9._~-]+)+\/?)?$/, 'must look like /api or /api/v1')
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
            /^(?:\*|[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[^\s/:?#[\]@]+)(?::\d{1,5})?\/?)$/i,
            'must be an origin: a scheme, a host and maybe a port (http://localhost:5173), or *',
          ),
      ),
    scope: 'server',
    help: "An origin allowed to call from a browser besides loopback ones (repeatable; '*': any); others get 403 / 40300",
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
    help: 'A Host accepted besides loopback names and the bound address (repeatable; all: no check); others get 403 / 40300',
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
    help: "Bytes of request bodies (and of the proxy target's answers) held in memory at once; past it a body is refused 429 / 42900",
    defaultText: 'an eighth of the heap limit, at most 128MB',
  }),
  timeouts: option({
    schema: () =>
      z.strictObject({
        headersMs: z.int().min(1).optional(),
        requestMs: z.int().min(1).optional(),
        keepAliveMs: z.int().min(1).optional(),
        shutdownMs: z.int().min(0).optional(),
      }),
    scope: 'server',
    help: 'Milliseconds: headersMs (10000), requestMs (30000, else 408), keepAliveMs (5000), shutdownMs (5000)',
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
    const parsed = safeParseReporting(optionSchema[name as OptionName](), value)
    if (parsed.success) values[name] = parsed.data
    else
      for (const issue of parsed.error.issues)
        problems.push(...describeIssues({ ...issue, path: [name, ...issue.path] }, 'options'))
  }
  if (problems.length > 0) throw new TypeError(`Invalid ${what} options: ${problems.join('; ')}`)
  return values
}

/** The value an option takes in code (its schema's input). */
export type OptionValue<K extends OptionName> = z.input<ReturnType<Table[K]['schema']>>

/** Each option's schema, built on first use. */
export const optionSchema = Object.fromEntries(
  Object.entries(optionTable).map(([name, spec]) => [name, once(spec.schema as () => z.ZodType)]),
) as { readonly [K in OptionName]: () => ReturnType<Table[K]['schema']> }

/** An option's flag name: `--journal-body-bytes` for `journalBodyBytes`. */
export function flagName(option: string): string {
  return option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}
