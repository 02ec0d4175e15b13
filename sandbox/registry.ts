import type { SandboxInstance } from './instance.js'

/**
 * The default sandbox and the `X-Sandbox-Id` ones, created on first use; beyond `capacity`
 * the least recently used named sandbox is dropped.
 */
export class InstanceRegistry {
  readonly #named = new Map<string, SandboxInstance>()

  constructor(
    readonly defaultInstance: SandboxInstance,
    private readonly capacity: number,
    private readonly create: (name: string) => SandboxInstance,
  ) {}

  get(name: string | null): SandboxInstance {
    if (name === null) return this.defaultInstance
    let instance = this.#named.get(name)
    if (instance) {
      this.#named.delete(name)
    } else {
      instance = this.create(name)
      if (this.#named.size >= this.capacity) {
        const oldest = this.#named.keys().next().value
        if (oldest !== undefined) this.#named.delete(oldest)
      }
    }
    this.#named.set(name, instance)
    return instance
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
