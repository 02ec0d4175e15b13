import { jsonFootprint } from '../../contract/json-size.js'
import { deepFreeze } from '../../db/row.js'
import type { OverrideLimits } from '../limits.js'
import { limitFlag } from '../limits.js'
import type { MatchRequest, NearMiss, Stored } from './matching.js'
import { conditions, firstFailure, NEEDS_BODY, prepareCondition } from './matching.js'
import { pathCloseness, pathSegments, segmentMatcher, segmentPattern } from './paths.js'
import type { Override, OverrideResponse, ParsedOverride } from './schemas.js'
import { overrideMethods, overrideTooLarge } from './schemas.js'

/** What every override costs besides its values (matcher, record). */
const OVERRIDE_OVERHEAD = 512

/**
 * What an override is counted as against its sandbox's `overridesBytes` (the recorder counts the
 * same); counted no further than past `maxBytes`.
 */
export function overrideFootprint(input: unknown, maxBytes = Number.POSITIVE_INFINITY): number {
  return OVERRIDE_OVERHEAD + jsonFootprint(input, Number.POSITIVE_INFINITY, maxBytes).bytes
}

/** Why one more override is refused where `count` are kept, the most a sandbox keeps. */
function overridesFull(count: number): string {
  return `this sandbox already has ${count} overrides, the most it keeps (${limitFlag('maxOverrides')}); remove some (DELETE /__sandbox/overrides)`
}

/**
 * Why a list of `given` overrides (a sandbox's to start with, a scenario's) is refused at entry
 * `most`, before any is read: it holds more than a sandbox keeps.
 */
export function overridesListTooLong(given: number, most: number): string {
  return `one of ${given} overrides, past the ${most} a sandbox keeps (${limitFlag('maxOverrides')})`
}

/** Refused: too many overrides, or too many bytes of them (the caller answers 413 or 429). */
export class OverrideBoundError extends Error {
  override readonly name = 'OverrideBoundError'
  constructor(
    message: string,
    /** `too-large`: this one alone is over the byte bound (413); `full`: the sandbox is (429). */
    readonly kind: 'too-large' | 'full',
  ) {
    super(message)
  }
}

/**
 * What one near miss weighs at most, in conditions checked and override path segments
 * compared: the overrides past it, the oldest, are not weighed. At the overrides' limits (1,000
 * of ~1,000 segments and 100 conditions each) weighing them all held the loop ~60 ms a 404;
 * what people keep (tens of overrides of a few conditions) is a few hundred.
 */
export const NEAR_MISS_WORK = 20_000

/** The overrides of one sandbox: newest first when matching; kept across data resets. */
export class Overrides {
  #list: Stored[] = []
  #nextId = 1
  #bytes = 0

  constructor(readonly limits: OverrideLimits) {}

  /**
   * What an override (validated or not: a body as sent, weighed before it is checked) costs
   * against the sandbox's bytes; an {@link OverrideBoundError} (`too-large`) past them alone.
   */
  weigh(input: unknown): number {
    const bytes = overrideFootprint(input, this.limits.bytes)
    if (bytes > this.limits.bytes)
      throw new OverrideBoundError(overrideTooLarge(this.limits.bytes), 'too-large')
    return bytes
  }

  /**
   * Stores an already validated override; past the sandbox's bounds, an
   * {@link OverrideBoundError}. Its memory is estimated from its shape, not its JSON's length.
   */
  add(input: ParsedOverride): Override {
    const bytes = this.weigh(input)
    if (this.#list.length >= this.limits.count)
      throw new OverrideBoundError(overridesFull(this.#list.length), 'full')
    if (this.#bytes + bytes > this.limits.bytes) {
      throw new OverrideBoundError(
        `this sandbox's overrides would take about ${this.#bytes + bytes} bytes, over ${limitFlag('overridesBytes')} ${this.limits.bytes}; remove some (DELETE /__sandbox/overrides)`,
        'full',
      )
    }
    prepareCondition(input.body)
    // Frozen: what `override()` and `overrides` hand out shares these objects, and a status of
    // 1000 or a header set on them afterwards was answered unchecked (500 / 50000).
    for (const part of [input.query, input.headers, input.body, input.response, input.responses])
      deepFreeze(part)
    const pattern = segmentPattern(input.path)
    const stored: Stored = {
      id: this.#nextId++,
      ...(input.method ? { method: input.method } : {}),
      path: input.path,
      ...(input.query ? { query: input.query } : {}),
      ...(input.headers ? { headers: input.headers } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.times ? { times: input.times, remaining: input.times } : {}),
      ...(input.responses
        ? { responses: input.responses, next: 0 }
        : { response: input.response! }),
      matches: segmentMatcher(input.path, pattern),
      pattern,
      ...(input.headers
        ? {
            headerConditions: Object.entries(input.headers).map(
              ([name, value]) => [name.toLowerCase(), value] as [string, string],
            ),
          }
        : {}),
      bytes,
    }
    this.#list.push(stored)
    this.#bytes += bytes
    return this.#public(stored)
  }

  /** Oldest first, as the control API lists them. */
  list(): Override[] {
    return this.#list.map((stored) => this.#public(stored))
  }

  get size(): number {
    return this.#list.length
  }

  /** Estimated bytes the overrides hold (counted against the sandboxes' memory budget). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * The `Allow` of a 405 an override answers on a path the API lacks: the methods of the
   * overrides on that path (every method when one of them names none).
   */
  methodsAt(path: string): string {
    const methods = new Set<string>()
    const segments = pathSegments(path)
    for (const stored of this.#list) {
      if (!stored.matches(segments)) continue
      if (!stored.method) return overrideMethods.join(', ')
      methods.add(stored.method)
    }
    return [...methods].join(', ')
  }

  /** Whether any override has a body condition (then a near miss may need the body). */
  get matchesBodies(): boolean {
    return this.#list.some((stored) => stored.body !== undefined)
  }

  remove(id: number): boolean {
    const index = this.#list.findIndex((stored) => stored.id === id)
    if (index < 0) return false
    this.#bytes -= this.#list[index]!.bytes
    this.#list.splice(index, 1)
    return true
  }

  clear(): void {
    this.#list = []
    this.#bytes = 0
  }

  /** What they are now, counts and all: the function puts them back (a change undone). */
  saved(): () => void {
    const list = this.#list.map((stored) => ({ ...stored }))
    const [nextId, bytes] = [this.#nextId, this.#bytes]
    return () => {
      this.#list = list
      this.#nextId = nextId
      this.#bytes = bytes
    }
  }

  /**
   * The newest override matching a request, not yet counted ({@link take} counts it): null when
   * none does, {@link NEEDS_BODY} when an override with a body condition matches everything
   * else and the request's body is not known yet. `methods`: the methods a method-less override
   * applies to (the route's), or null for any (a path the API lacks).
   */
  find(
    request: MatchRequest,
    methods: ReadonlySet<string> | null,
  ): Stored | null | typeof NEEDS_BODY {
    for (let index = this.#list.length - 1; index >= 0; index--) {
      const stored = this.#list[index]!
      const failed = firstFailure(stored, request, methods)
      if (failed === null) return stored
      if (failed === NEEDS_BODY) return NEEDS_BODY
    }
    return null
  }

  /** Counts a match of an override {@link find} returned: its answer, and its removal after the last. */
  take(found: Override): { override: Override; response: OverrideResponse } {
    const stored = found as Stored
    let response: OverrideResponse
    if (stored.responses) {
      const next = stored.next ?? 0
      response = stored.responses[Math.min(next, stored.responses.length - 1)]!
      stored.next = Math.min(next + 1, stored.responses.length - 1)
    } else response = stored.response!
    if (stored.remaining !== undefined) {
      stored.remaining -= 1
      if (stored.remaining <= 0) this.remove(stored.id)
    }
    return { override: this.#public(stored), response }
  }

  /**
   * The override a request came closest to matching and the first condition it failed (CONTRACT
   * C2's near misses): the one that passed the most conditions; on a tie, the one whose path
   * is closest to the request's ({@link pathCloseness}), then the newest. Null when the sandbox
   * has no overrides. Newest first, and no further than {@link NEAR_MISS_WORK}.
   */
  nearMiss(request: MatchRequest): (NearMiss & { method?: string; path: string }) | null {
    let best: { stored: Stored; passed: number; reason: string; closeness: number } | null = null
    const segments = pathSegments(request.path)
    let work = 0
    for (let index = this.#list.length - 1; index >= 0; index--) {
      const stored = this.#list[index]!
      const checks = conditions(stored, request, null)
      work += checks.length + stored.pattern.length
      if (best && work > NEAR_MISS_WORK) break
      let passed = 0
      let reason: string | null = null
      for (const check of checks) {
        const failed = check()
        if (failed === null) passed++
        else reason ??= failed === NEEDS_BODY ? 'body' : failed
      }
      if (reason === null) continue
      if (best && passed < best.passed) continue
      const closeness = pathCloseness(stored.pattern, segments)
      if (!best || passed > best.passed || closeness > best.closeness)
        best = { stored, passed, reason, closeness }
    }
    return (
      best && {
        overrideId: best.stored.id,
        reason: best.reason,
        ...(best.stored.method ? { method: best.stored.method } : {}),
        path: best.stored.path,
      }
    )
  }

  #public(stored: Stored): Override {
    const { matches: _, headerConditions: __, bytes: ___, pattern: ____, ...override } = stored
    return { ...override }
  }
}
