import type { Step } from '../../http/compose.js'
import type { Front } from './context.js'
import { refuse } from './refuse.js'

/**
 * The Host check (CONTRACT C3): a `Host` that is not loopback, the bound address or a host
 * given with `--allowed-hosts` is 403 (DNS rebinding). An absolute-form target (`GET
 * http://other.host/users`) names its host itself (RFC 9112 §3.2.2): checked as well.
 */
export const host: Step<Front, void> = {
  name: 'host',
  run(f, next) {
    const { hosts } = f.server
    const refusal =
      hosts(f.req.headers.host) ?? ((f.req.url ?? '/').startsWith('/') ? null : hosts(f.url.host))
    if (refusal) return refuse(f, refusal)
    next(f)
  },
}
