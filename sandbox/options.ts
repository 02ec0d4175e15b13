import * as z from 'zod'
import { once } from '../contract/once.js'
import { describeIssue } from '../contract/issues.js'
import type { ProgressReporter } from '../db/progress.js'
import { Catalog } from '../resources/catalog.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { resolveSeedOptions } from '../resources/seed.js'
import type { ShopCounts } from '../shop/index.js'
import { shopCatalog, shopResources } from '../shop/index.js'
import type { Delay, RuntimeConfig } from '../state/runtime-config.js'
import type { SandboxLimits } from '../state/limits.js'
import type { OverrideInput } from '../state/overrides.js'
import { defaultLimits, limitBounds } from '../state/limits.js'
import {
  defaultRuntimeConfig,
  runtimeConfigPatchSchema,
  withSettings,
} from '../state/runtime-config.js'

/** Options of {@link createSandbox}; every one is also a CLI flag of `shop-sandbox serve`. */
export interface SandboxOptions extends Partial<ShopCounts> {
  /** Seed of the generator: the same seed and counts give byte-identical data. Default 1. */
  seed?: number
  /**
   * Resources of your real API beyond the shop's (see `defineResource`): each gets CRUD, list
   * queries, auth, the contract's errors, the control API, persistence and OpenAPI.
   */
  resources?: readonly AnyResourceDefinition[]
  /** Records to seed per resource by name (the shop's counts may also be given as options). */
  counts?: Readonly<Record<string, number>>
  /**
   * Where the API lives: relative like `''` (the root, default) or `/api`, or absolute like
   * `https://api.example.com` or `https://api.example.com/v1`. Requests elsewhere are not touched.
   */
  baseUrl?: string
  /** Require bearer tokens (default true). When false, requests without a token act as the admin. */
  auth?: boolean
  /** Lifetime of tokens from `POST /sessions`, in seconds (default 3600). */
  tokenTtl?: number
  /** Unknown query parameters and body fields are errors (default false). */
  strict?: boolean
  /** Latency of every API response: ms, `{ min, max }` or `"min-max"` (default 0). */
  delay?: Delay | string
  /** Share of API requests answered 500 or 503, 0 to 1 (default 0), from a PRNG seeded by `seed`. */
  errorRate?: number
  /** Share of API requests whose connection is dropped, 0 to 1 (default 0). */
  dropRate?: number
  /** Serve the control API under `/__sandbox` (default true). */
  control?: boolean
  /**
   * Where the OpenAPI document is served (default `/openapi.json`; `false`: not at all).
   * `startSandbox` puts it under a relative base URL instead, so it never shadows the app's files.
   */
  openApiPath?: string | false
  /** Live `X-Sandbox-Id` sandboxes kept at most; the least recently used goes first (default 1000). */
  maxSandboxes?: number
  /** Requests kept in each sandbox's journal (default 1000; 0 turns the journal off). */
  journalSize?: number
  /** Bytes of one request or response body the journal keeps, redacted (default 16 KiB; 0: no bodies). */
  journalBodyBytes?: number
  /** Bytes one sandbox's journal may take, bodies counted (default 4 MiB); the oldest entries go first. */
  journalBytes?: number
  /** Live session tokens per sandbox (default 10,000); past it `POST /sessions` gets 429. */
  maxSessions?: number
  /** Estimated bytes all `X-Sandbox-Id` sandboxes may hold together (default 256 MiB; the server: a quarter of the heap limit). */
  sandboxesMemory?: number
  /** Largest `PUT /__sandbox/db` body in bytes (default 8 MiB). */
  maxDocumentBytes?: number
  /** Overrides one sandbox keeps at most (default 1000); past it, adding one is 429. */
  maxOverrides?: number
  /**
   * Estimated bytes the overrides of one sandbox may take (default 16 MiB; the server: a
   * sixty-fourth of the heap limit); one larger alone is 413, one that does not fit 429.
   */
  overridesBytes?: number
  /** The clock for timestamps and token expiry (default: the real one). */
  clock?: () => Date | number
  /** Called with anything unexpected a request throws (it is answered 500). Default: `console.error`. */
  onUnexpectedError?: (error: unknown) => void
  /** Hears how seeding and indexing advance (for a progress bar on big data sets). */
  onProgress?: ProgressReporter
  /** Overrides (CONTRACT C2) the default sandbox starts with, as `sandbox.override()` takes them. */
  overrides?: readonly OverrideInput[]
}

export interface ResolvedOptions {
  seed: number
  /** Records seeded per resource. */
  counts: Record<string, number>
  /** The resources served: the shop's, then the sandbox's own. */
  catalog: Catalog
  origin: string | null
  basePath: string
  tokenTtl: number
  control: boolean
  /** Where the OpenAPI document is served, or null when it is not. */
  openApiPath: string | null
  maxSandboxes: number
  limits: SandboxLimits
  config: RuntimeConfig
  now: () => number
  onUnexpectedError: (error: unknown) => void
}

/** Bounds of the numeric options, [min, max] (the CLI's flags take the same). */
export const optionLimits = {
  tokenTtl: [1, 31_536_000],
  maxSandboxes: [1, 100_000],
} as const

/** The defaults of the fixed options (the runtime settings' are `defaultRuntimeConfig`; the CLI's flags take both). */
export const optionDefaults = {
  tokenTtl: 3600,
  control: true,
  openApiPath: '/openapi.json' as string | false,
  maxSandboxes: 1000,
}

/**
 * The schema of each validated option, in the order problems are reported: the runtime settings
 * (validated as `PATCH /__sandbox/config` does), then the fixed options. Each is built when an
 * option it checks is given: a sandbox created with none of them builds none.
 */
const optionSchemas: Record<string, () => z.ZodType> = Object.fromEntries(
  Object.entries({
    ...Object.fromEntries(
      Object.keys(defaultRuntimeConfig).map((name) => [
        name,
        () => runtimeConfigPatchSchema().shape[name as keyof RuntimeConfig],
      ]),
    ),
    baseUrl: () => z.string().max(2000),
    tokenTtl: () => z.int().min(optionLimits.tokenTtl[0]).max(optionLimits.tokenTtl[1]),
    control: () => z.boolean(),
    openApiPath: () =>
      z.union([
        z.literal(false),
        z.string().regex(/^\/[^?#\s]*$/, 'must be a path starting with /'),
      ]),
    maxSandboxes: () => z.int().min(optionLimits.maxSandboxes[0]).max(optionLimits.maxSandboxes[1]),
    ...Object.fromEntries(
      Object.entries(limitBounds).map(([name, [min, max]]) => [
        name,
        () => z.int().min(min).max(max),
      ]),
    ),
  }).map(([name, make]) => [name, once(make as () => z.ZodType)]),
)

/** The options with a schema, validated (only those given are parsed); throws naming every bad one. */
function validOptions(options: SandboxOptions): Record<string, unknown> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('Invalid sandbox options: options: must be an object')
  const values: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [name, schema] of Object.entries(optionSchemas)) {
    const value = (options as Record<string, unknown>)[name]
    if (value === undefined) continue
    const parsed = schema().safeParse(value, { reportInput: true })
    if (parsed.success) values[name] = parsed.data
    else
      for (const issue of parsed.error.issues)
        problems.push(describeIssue({ ...issue, path: [name, ...issue.path] }, 'options'))
  }
  if (problems.length > 0) throw new TypeError(`Invalid sandbox options: ${problems.join('; ')}`)
  return values
}

/** Fills in defaults and validates; throws an Error whose message names every bad option. */
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const given = validOptions(options) as Partial<typeof optionDefaults> & {
    baseUrl?: string
  } & Partial<Record<keyof typeof limitBounds, number>> &
    Partial<RuntimeConfig>
  const {
    baseUrl,
    tokenTtl,
    control,
    openApiPath,
    maxSandboxes,
    journalSize,
    journalBodyBytes,
    journalBytes,
    maxSessions,
    sandboxesMemory,
    maxDocumentBytes,
    maxOverrides,
    overridesBytes,
    ...settings
  } = { ...optionDefaults, ...given }
  const { clock } = options
  const catalog = options.resources?.length
    ? new Catalog([...shopResources, ...options.resources])
    : shopCatalog
  return {
    ...seedOptions(catalog, options),
    catalog,
    ...parseBaseUrl(baseUrl ?? ''),
    tokenTtl,
    control,
    openApiPath: openApiPath === false ? null : openApiPath,
    maxSandboxes,
    limits: {
      journal: {
        size: journalSize ?? defaultLimits.journal.size,
        bodyBytes: journalBodyBytes ?? defaultLimits.journal.bodyBytes,
        bytes: journalBytes ?? defaultLimits.journal.bytes,
      },
      maxSessions: maxSessions ?? defaultLimits.maxSessions,
      sandboxesMemory: sandboxesMemory ?? defaultLimits.sandboxesMemory,
      maxDocumentBytes: maxDocumentBytes ?? defaultLimits.maxDocumentBytes,
      overrides: {
        count: maxOverrides ?? defaultLimits.overrides.count,
        bytes: overridesBytes ?? defaultLimits.overrides.bytes,
      },
    },
    config: withSettings(defaultRuntimeConfig, settings),
    now: clock ? () => Number(clock()) : Date.now,
    onUnexpectedError:
      options.onUnexpectedError ??
      ((error) => console.error('[shop-sandbox] unexpected error:', error)),
  }
}

/** The seed and every resource's count, from `counts` and the shop's count options. */
function seedOptions(catalog: Catalog, options: SandboxOptions) {
  const given: Record<string, unknown> = { ...options.counts, seed: options.seed }
  for (const { name } of shopCatalog.resources)
    given[name] ??= (options as Record<string, unknown>)[name]
  const { seed, ...counts } = resolveSeedOptions(catalog, given)
  return { seed, counts }
}

/** Splits a base URL into an origin (null when relative) and a path without trailing slash. */
export function parseBaseUrl(baseUrl: string): { origin: string | null; basePath: string } {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl)
  if (!absolute && baseUrl !== '' && !baseUrl.startsWith('/')) {
    throw new TypeError(
      `baseUrl must be absolute (https://api.example.com) or start with '/', got '${baseUrl}'`,
    )
  }
  const url = new URL(baseUrl || '/', 'http://relative.invalid')
  if (url.search || url.hash)
    throw new TypeError(`baseUrl must not have a query or fragment, got '${baseUrl}'`)
  const basePath = url.pathname.replace(/\/+$/, '')
  return { origin: absolute ? url.origin : null, basePath }
}
