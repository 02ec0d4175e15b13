import { ApiError } from '../contract/api-error.js'
import { failure } from '../contract/envelope.js'
import type { ApiResponse } from '../contract/exchange.js'
import type { SandboxInstance } from '../state/instance.js'

/**
 * A write's answer once its change is durable (the data file or browser storage holds it), or
 * 503 / 50300 naming why it could not be (the change is undone then): a 2xx is never sent for a
 * change the disk lacks (issue 30). Without persistence, the answer as it is.
 */
export function durably(
  instance: SandboxInstance,
  response: ApiResponse,
): ApiResponse | Promise<ApiResponse> {
  const persistence = instance.persistence
  if (!persistence || response.status >= 300) return response
  return persistence.commit().then(
    () => response,
    (error: unknown) => failure(refused(error)),
  )
}

/** Waits until every change so far is durable; throws the 503 / 50300 when it could not be. */
export async function madeDurable(instance: SandboxInstance): Promise<void> {
  try {
    await instance.persistence?.commit()
  } catch (error) {
    throw refused(error)
  }
}

function refused(error: unknown): ApiError {
  return ApiError.of('serviceUnavailable', (error as Error).message)
}
