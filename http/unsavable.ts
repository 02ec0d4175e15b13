import type { SandboxInstance } from '../state/instance.js'
import { ApiError } from '../contract/api-error.js'

/** 503 / 50300 while the sandbox's data file cannot be written: no write is acknowledged then. */
export function refuseUnsavable(instance: SandboxInstance): void {
  const refusal = instance.persistence?.writeRefusal()
  if (refusal) throw ApiError.of('serviceUnavailable', refusal)
}
