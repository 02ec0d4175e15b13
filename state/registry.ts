import type { SandboxInstance } from './instance.js'
import type { Scenario } from './scenarios.js'

/**
 * The default sandbox and the `X-Sandbox-Id` ones, created on first use; beyond `capacity`
 * named sandboxes, or beyond `budget` estimated bytes for all of them, the least recently used
 * named sandbox is dropped. Never one a request is still being answered in: a write answered
 * 201 into a sandbox dropped while it waited (its delay, its body) was lost with it, so such a
 * sandbox stays until its last request is answered, past the bounds while all are busy.
 */
export class InstanceRegistry {
  readonly #named = new Map<string, SandboxInstance>()
  /** Requests being answered, by sandbox (entered, not yet settled). */
  readonly #busy = new Map<SandboxInstance, number>()

  constructor(
    readonly defaultInstance: SandboxInstance,
    private readonly capacity: number,
    private readonly create: (name: string, scenario?: Scenario) => SandboxInstance,
    private readonly budget = Number.POSITIVE_INFINITY,
  ) {}

  /** The sandbox a request is answered in ({@link get}), kept until it is {@link settle}d. */
  enter(name: string | null, scenario?: Scenario): SandboxInstance {
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
    if (this.#named.size === 0) return
    let total = 0
    for (const instance of this.#named.values()) total += instance.estimatedBytes
    for (const [name, instance] of this.#named) {
      if (total <= this.budget) return
      if (instance === current || this.#busy.has(instance)) continue
      total -= instance.estimatedBytes
      this.#named.delete(name)
    }
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
  }
}
