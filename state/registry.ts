import { ApiError } from '../contract/api-error.js'
import { flagOf } from '../contract/option-spec.js'
import type { SandboxInstance } from './instance.js'
import { limitFlag } from './limits.js'
import type { Scenario } from './scenarios.js'

/**
 * The default sandbox and the `X-Sandbox-Id` ones, created on first use; beyond `capacity`
 * named sandboxes, or beyond `budget` estimated bytes for all of them, the least recently used
 * named sandbox is dropped. Never one a request is still being answered in: a write answered
 * 201 into a sandbox dropped while it waited (its delay, its body) was lost with it, so such a
 * sandbox stays until its last request is answered. So that requests held open cannot keep
 * sandboxes past the bounds (each filled, then held by a delayed request, until the process ran
 * out of memory), a request to a named sandbox is refused, 429 / 42900, while the bound is
 * reached and what holds it is busy: a new sandbox past the count, any past the bytes (unless
 * the sandbox is alone over them: its own bounds govern it).
 */
export class InstanceRegistry {
  readonly #named = new Map<string, SandboxInstance>()
  /** Requests being answered, by sandbox (entered, not yet settled). */
  readonly #busy = new Map<SandboxInstance, number>()
  /** What the named sandboxes held when they were last counted ({@link settle}). */
  #held = 0

  constructor(
    readonly defaultInstance: SandboxInstance,
    private readonly capacity: number,
    private readonly create: (name: string, scenario?: Scenario) => SandboxInstance,
    private readonly budget = Number.POSITIVE_INFINITY,
  ) {}

  /** The sandbox a request is answered in ({@link get}), kept until it is {@link settle}d. */
  enter(name: string | null, scenario?: Scenario): SandboxInstance {
    if (name !== null) this.#admit(name)
    const instance = this.get(name, scenario)
    this.#busy.set(instance, (this.#busy.get(instance) ?? 0) + 1)
    return instance
  }

  /**
   * After a request ({@link enter}): while the named sandboxes hold more than the budget, drops
   * the least recently used ones (never `current`, the one that just served, nor a busy one).
   */
  settle(current: SandboxInstance): void {
    const busy = this.#busy.get(current)
    if (busy === 1) this.#busy.delete(current)
    else if (busy !== undefined) this.#busy.set(current, busy - 1)
    if (this.#named.size > 0) this.#fit(current)
    else this.#held = 0
  }

  /**
   * Drops the least recently used named sandboxes that are neither `kept` nor busy while all
   * hold more than the budget; returns what they hold then.
   */
  #fit(kept: SandboxInstance | undefined): number {
    let total = 0
    for (const instance of this.#named.values()) total += instance.estimatedBytes
    for (const [name, instance] of this.#named) {
      if (total <= this.budget) break
      if (instance === kept || this.#busy.has(instance)) continue
      total -= instance.estimatedBytes
      this.#named.delete(name)
    }
    return (this.#held = total)
  }

  /** Refuses a request to the sandbox `name` while the bounds are held by busy sandboxes. */
  #admit(name: string): void {
    const known = this.#named.get(name)
    if (known === undefined && this.#named.size >= this.capacity && this.#allBusy())
      throw ApiError.of(
        'rateLimited',
        `all ${this.#named.size} sandboxes (${flagOf('maxSandboxes')} ${this.capacity}) are answering requests, so none can make room for sandbox '${name}'; retry when they are done`,
      )
    // What the sandboxes held when the last request settled: over the budget, only busy ones
    // (and that request's) were left, and may be still.
    if (this.#held <= this.budget) return
    const total = this.#fit(known)
    if (total > this.budget && total > (known?.estimatedBytes ?? 0)) {
      const mb = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`
      throw ApiError.of(
        'rateLimited',
        `the sandboxes hold about ${mb(total)}, over ${limitFlag('sandboxesMemory')} ${mb(this.budget)}, and those holding it are answering requests, so none can be dropped; retry when they are done`,
      )
    }
  }

  #allBusy(): boolean {
    for (const instance of this.#named.values()) if (!this.#busy.has(instance)) return false
    return true
  }

  /**
   * The sandbox of a name (null: the default one), created on first use, in `scenario` when
   * given (CONTRACT C5: `X-Sandbox-Scenario` picks the scenario of the sandbox it creates).
   */
  get(name: string | null, scenario?: Scenario): SandboxInstance {
    if (name === null) return this.defaultInstance
    let instance = this.#named.get(name)
    if (instance) {
      this.#named.delete(name)
    } else {
      instance = this.create(name, scenario)
      if (this.#named.size >= this.capacity)
        for (const [oldest, kept] of this.#named)
          if (!this.#busy.has(kept)) {
            this.#named.delete(oldest)
            break
          }
    }
    this.#named.set(name, instance)
    return instance
  }

  /** The default sandbox, then the named ones, least recently used first. */
  all(): SandboxInstance[] {
    return [this.defaultInstance, ...this.#named.values()]
  }

  /** How many named sandboxes are alive. */
  get size(): number {
    return this.#named.size
  }

  /** Forgets every named sandbox (a request still being answered in one settles it as usual). */
  clear(): void {
    this.#named.clear()
    this.#held = 0
  }
}
