import type { ApiRequest } from '../../contract/exchange.js'
import { clip, invalidParameter } from '../../contract/params.js'

/**
 * Step 2, the sandbox (CONTRACT C1): `X-Sandbox-Id` names the caller's own copy of the data;
 * none means the default one. A name that is not one is 400 / 40000.
 */

const SANDBOX_ID = /^[A-Za-z0-9_.-]{1,64}$/

/** The sandbox a request names, or null for the default one. */
export function sandboxId(request: ApiRequest): string | null {
  const name = request.header('x-sandbox-id')
  if (name === null) return null
  if (!SANDBOX_ID.test(name)) {
    throw invalidParameter(
      `X-Sandbox-Id must be 1-64 characters of A-Z a-z 0-9 _ . -, got '${clip(name)}'`,
    )
  }
  return name
}
