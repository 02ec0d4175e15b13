import type { JournalLimits } from './journal.js'
import { defaultJournalLimits } from './journal.js'
import type { OverrideLimits } from './overrides.js'

/**
 * The bounds of CONTRACT C3, in bytes as well as counts: what one request, one sandbox and
 * all named sandboxes together may hold. Past a bound the sandbox evicts (least recently used
 * first) or refuses with the contract's error; the README lists each with its flag.
 */
export interface SandboxLimits {
  journal: JournalLimits
  /** Live session tokens per sandbox; past it `POST /sessions` gets 429 / 42900. */
  maxSessions: number
  /** Estimated bytes all `X-Sandbox-Id` sandboxes may hold together; the least recently used go first. */
  sandboxesMemory: number
  /** Largest body of `PUT /__sandbox/db` (413 / 41300 past it). */
  maxDocumentBytes: number
  /** Overrides one sandbox keeps, in count and estimated bytes (429 past them, 413 for one too large). */
  overrides: OverrideLimits
}

const MiB = 1024 * 1024

export const defaultLimits: Readonly<SandboxLimits> = {
  journal: defaultJournalLimits,
  maxSessions: 10_000,
  sandboxesMemory: 256 * MiB,
  maxDocumentBytes: 8 * MiB,
  overrides: { count: 1000, bytes: 16 * MiB },
}

/** [min, max] of each numeric limit (options and CLI flags take the same). */
export const limitBounds = {
  journalSize: [0, 100_000],
  journalBodyBytes: [0, MiB],
  journalBytes: [0, 1024 * MiB],
  maxSessions: [1, 1_000_000],
  sandboxesMemory: [MiB, 64 * 1024 * MiB],
  maxDocumentBytes: [1024, 1024 * MiB],
  maxOverrides: [1, 100_000],
  overridesBytes: [64 * 1024, 1024 * MiB],
} as const

/** Estimated bytes one live session token takes (token string, map entry, record). */
export const SESSION_BYTES = 200
