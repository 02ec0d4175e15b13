import { ApiError } from '../../contract/api-error.js'
import { codes } from '../../contract/codes.js'
import { dropped } from '../../contract/envelope.js'
import type { ApiRequest, ApiResponse } from '../../contract/exchange.js'
import { integerParameter } from '../../contract/params.js'
import type { SandboxInstance } from '../../state/instance.js'
import { drawDelay, MAX_DELAY_MS } from '../../state/runtime-config.js'

/**
 * Steps 3 and 4, latency and faults (CONTRACT C1): the request waits its delay (the
 * `X-Sandbox-Delay` header's, else the settings'), then may meet an injected fault (a dropped
 * connection, a 500 or a 503) from the sandbox's seeded stream.
 */

/** How long a request waits before anything else: its header's delay, else the settings'. */
export function delayOf(request: ApiRequest, instance: SandboxInstance): number {
  const raw = request.header('x-sandbox-delay')
  if (raw !== null) return integerParameter('X-Sandbox-Delay', raw.trim(), 0, MAX_DELAY_MS)
  return drawDelay(instance.config.delay, instance.delayRandom)
}

/** An injected fault for this request, if the rates draw one: a drop, or a thrown 500 / 503. */
export function injectedFault(instance: SandboxInstance): ApiResponse | null {
  const { config } = instance
  if (config.dropRate === 0 && config.errorRate === 0) return null
  const roll = instance.faultRandom()
  if (roll < config.dropRate) return dropped()
  if (roll < config.dropRate + config.errorRate) {
    const name = instance.faultRandom() < 0.5 ? 'internalError' : 'serviceUnavailable'
    throw ApiError.of(name, `${codes[name].message} (injected fault)`)
  }
  return null
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
