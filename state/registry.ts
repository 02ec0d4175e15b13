import type { SandboxInstance } from './instance.js'
import type { Scenario } from './scenarios.js'

/**
 * The default sandbox and the `X-Sandbox-Id` ones, created on first use; beyond `capacity`
 * named sandboxes, or beyond `budget` estimated bytes for all of them, the least recently used
 * named sandbox is dropped.
 */
export class InstanceRegistry {
  readonly #named = new Map<string, SandboxInstance>()

  constructor(
    readonly defaultInstance: SandboxInstance,
    private readonly capacity: number,
    private readonly create: (name: string, scenario?: Scenario) => SandboxInstance,
    private readonly budget = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * After a request: while the named sandboxes hold more than the budget, drops the least
   * recently used ones (never `current`, the one that just served).
   */
  settle(current: SandboxInstance): void {
    if (this.#named.size === 0) return
    let total = 0
    for (const instance of this.#named.values()) total += instance.estimatedBytes
    for (const [name, instance] of this.#named) {
      if (total <= this.budget) return
      if (instance === current) continue
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
      if (this.#named.size >= this.capacity) {
        const oldest = this.#named.keys().next().value
        if (oldest !== undefined) this.#named.delete(oldest)
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

  /** Forgets every named sandbox. */
  clear(): void {
    this.#named.clear()
  }
}
