import * as z from 'zod'
import type { OptionSpec } from '../contract/option-spec.js'
import { flagOf, landed, option } from '../contract/option-spec.js'
import { heapStatistics } from '../db/heap.js'

/** How much a journal keeps (CONTRACT C3: bounds in bytes as well as counts). */
export interface JournalLimits {
  /** Requests kept at most; 0 turns the journal off. */
  size: number
  /** Bytes of one request body kept (redacted JSON); longer ones are cut with a marker; 0 keeps none. */
  bodyBytes: number
  /** Bytes all kept entries may take (estimated); the oldest go first. */
  bytes: number
}

/** How many overrides, and how many bytes of them, one sandbox keeps (CONTRACT C3). */
export interface OverrideLimits {
  count: number
  bytes: number
}

/**
 * The bounds of CONTRACT C3, in bytes as well as counts: what one request, one sandbox and
 * all named sandboxes together may hold. Past a bound the sandbox evicts (least recently used
 * first) or refuses with the contract's error. Each is an option (a row of the option table:
 * its bounds, default, unit, flag and where it lands in the resolved options).
 */
export interface SandboxLimits {
  journal: JournalLimits
  /** Live session tokens per sandbox; past it `POST /sessions` gets 429 / 42900. */
  maxSessions: number
  /** Estimated bytes all `X-Sandbox-Id` sandboxes may hold together; the least recently used go first. */
  sandboxesMemory: number
  /** Estimated bytes one sandbox's data may grow by through writes; past it a write that adds data is 429. */
  writtenBytes: number
  /** Largest body of `PUT /__sandbox/db` (413 / 41300 past it). */
  maxDocumentBytes: number
  /** Overrides one sandbox keeps, in count and estimated bytes (429 past them, 413 for one too large). */
  overrides: OverrideLimits
}

const MiB = 1024 * 1024

/** The most `overridesBytes` may be: an override past it fits no sandbox, and is not walked on. */
export const MAX_OVERRIDES_BYTES = 1024 * MiB

/**
 * The bounds whose defaults are a share of V8's heap limit, so that they hold under a small heap
 * too (`--max-old-space-size=512`): the share, and the most it is on the server and in process
 * (a test runner, a page); where the heap limit cannot be read, the most.
 */
const HEAP_SHARES = {
  sandboxesMemory: { share: 4, server: 512 * MiB, inProcess: 256 * MiB },
  writtenBytes: { share: 4, server: 512 * MiB, inProcess: 256 * MiB },
  overridesBytes: { share: 64, server: 32 * MiB, inProcess: 16 * MiB },
} as const

type HeapShared = keyof typeof HEAP_SHARES

/** The defaults of the bounds shared from the heap ({@link HEAP_SHARES}), in this process. */
export function heapDefaults(where: 'server' | 'inProcess'): Record<HeapShared, number> {
  const limit = heapStatistics()?.limit
  const out = {} as Record<HeapShared, number>
  for (const [name, row] of Object.entries(HEAP_SHARES) as [
    HeapShared,
    (typeof HEAP_SHARES)[HeapShared],
  ][])
    out[name] =
      limit === undefined ? row[where] : Math.min(row[where], Math.floor(limit / row.share))
  return out
}

function heapShareText(name: HeapShared): string {
  const { share, server, inProcess } = HEAP_SHARES[name]
  const part = share === 4 ? 'a quarter' : 'a sixty-fourth'
  return `${part} of the heap limit, at most ${server / MiB}MB on the server and ${inProcess / MiB}MB in process`
}

const integer = (min: number, max: number) => () => z.int().min(min).max(max)

/** The limits as options: one row each. */
export const limitOptions = {
  journalSize: option({
    schema: integer(0, 100_000),
    scope: 'sandbox',
    help: "Requests kept in each sandbox's journal (0: no journal)",
    default: 1000,
    unit: 'requests',
    lands: 'limits.journal.size',
    flag: { kind: 'integer' },
  }),
  journalBodyBytes: option({
    schema: integer(0, MiB),
    scope: 'sandbox',
    help: 'Size of a request or response body the journal keeps, redacted, cut with a marker past it (0: none)',
    default: 16 * 1024,
    unit: 'bytes',
    lands: 'limits.journal.bodyBytes',
    flag: { kind: 'bytes' },
  }),
  journalBytes: option({
    schema: integer(0, 1024 * MiB),
    scope: 'sandbox',
    help: "Size one sandbox's journal may take, bodies counted; the oldest entries go first",
    default: 4 * MiB,
    unit: 'bytes',
    lands: 'limits.journal.bytes',
    flag: { kind: 'bytes' },
  }),
  maxSessions: option({
    schema: integer(1, 1_000_000),
    scope: 'sandbox',
    help: 'Live POST /sessions tokens per sandbox; past it a login gets 429 / 42900',
    default: 10_000,
    unit: 'sessions',
    lands: 'limits.maxSessions',
    flag: { kind: 'integer' },
  }),
  sandboxesMemory: option({
    schema: integer(MiB, 64 * 1024 * MiB),
    scope: 'sandbox',
    help: 'Memory all X-Sandbox-Id sandboxes may hold together (estimated); the least recently used are dropped (while those holding it are answering requests, 429 / 42900)',
    default: HEAP_SHARES.sandboxesMemory.inProcess,
    defaultText: heapShareText('sandboxesMemory'),
    unit: 'bytes',
    lands: 'limits.sandboxesMemory',
    flag: { kind: 'bytes' },
  }),
  writtenBytes: option({
    schema: integer(MiB, 64 * 1024 * MiB),
    scope: 'sandbox',
    help: "Memory one sandbox's data may grow by through writes (estimated); past it a write that adds data is 429 / 42900 (deletes and resets go through)",
    default: HEAP_SHARES.writtenBytes.inProcess,
    defaultText: heapShareText('writtenBytes'),
    unit: 'bytes',
    lands: 'limits.writtenBytes',
    flag: { kind: 'bytes' },
  }),
  maxDocumentBytes: option({
    schema: integer(1024, 1024 * MiB),
    scope: 'sandbox',
    help: 'Largest PUT /__sandbox/db body (413 / 41300 past it)',
    default: 8 * MiB,
    unit: 'bytes',
    lands: 'limits.maxDocumentBytes',
    flag: { kind: 'bytes' },
  }),
  maxOverrides: option({
    schema: integer(1, 100_000),
    scope: 'sandbox',
    help: 'Overrides one sandbox keeps at most; adding one more is 429 / 42900',
    default: 1000,
    unit: 'overrides',
    lands: 'limits.overrides.count',
    flag: { kind: 'integer' },
  }),
  overridesBytes: option({
    schema: integer(64 * 1024, MAX_OVERRIDES_BYTES),
    scope: 'sandbox',
    help: "Memory one sandbox's overrides may take (estimated); one larger alone is 413 / 41300, one that no longer fits 429 / 42900",
    default: HEAP_SHARES.overridesBytes.inProcess,
    defaultText: heapShareText('overridesBytes'),
    unit: 'bytes',
    lands: 'limits.overrides.bytes',
    flag: { kind: 'bytes' },
  }),
} as const satisfies Record<string, OptionSpec>

export type LimitName = keyof typeof limitOptions

/** A limit's flag, for messages (`--max-overrides`). */
export function limitFlag(name: LimitName): string {
  return flagOf(name)
}

/** Every limit at its default. */
export const defaultLimits = landed(limitOptions).limits as Readonly<SandboxLimits>

/** Estimated bytes one live session token takes (token string, map entry, record). */
export const SESSION_BYTES = 200
