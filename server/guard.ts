import { isIP } from 'node:net'
import { ApiError } from '../contract/api-error.js'
import { clip, trimSlashes } from '../contract/params.js'
import { flag, optionSchema, portInRange } from '../sandbox/option-table.js'

/**
 * CONTRACT C3: who may talk to a sandbox left running. The `Host` check stops DNS rebinding
 * (a page whose name resolves to 127.0.0.1 would otherwise be same-origin with the sandbox),
 * as Vite's `server.allowedHosts` and webpack-dev-server's `allowedHosts` do; the `Origin`
 * check stops pages on other sites from reading or changing anything.
 */

/** `all` turns the Host check off; otherwise extra names allowed besides loopback and the bound address. */
export type AllowedHosts = readonly string[] | 'all'

/** The value of `--cors-origin` that allows every origin. */
export const ANY_ORIGIN = '*'

/** Allowed `Host` values the check remembers (see {@link hostGuard}). */
const PASSED_HOSTS = 64

const loopbackNames = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])
const wildcardAddresses = new Set(['0.0.0.0', '::', '[::]'])

/** `localhost`, `*.localhost`, 127.0.0.0/8 and `::1`: names and addresses that only mean this machine. */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return (
    loopbackNames.has(name) ||
    name.endsWith('.localhost') ||
    (isIP(name) === 4 && name.startsWith('127.'))
  )
}

/**
 * Whether a `Host` header names a host at all: a name of letters, digits, `_`, `.` and `-`, or a
 * bracketed IPv6 address, with a port in range or none (`evil.test#.localhost` and
 * `127.0.0.1:99999` do not: no browser sends them).
 */
function namesAHost(host: string): boolean {
  if (!portInRange(/:(\d*)$/.exec(host)?.[1])) return false
  return /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/i.test(hostnameOf(host))
}

/** The host name of a `Host` header (`[::1]:4010` → `[::1]`, `Example.test:80` → `example.test`). */
function hostnameOf(host: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host)
  if (bracketed) return `[${bracketed[1]!.toLowerCase()}]`
  // A fully qualified name's trailing dot (`sandbox.test.`) names the same host.
  return host.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase()
}

/**
 * Whether a `Host` names this server by a name it was given: loopback, the bound address, or
 * a host listed one by one in `allowed`. Bound to a wildcard address (`0.0.0.0`), IP literals
 * count too: they are the machine's own addresses, and rebinding needs a name. `all` lists no
 * name: it turns the Host check off, never vouches for a name.
 */
export function namedHost(allowed: AllowedHosts, boundHost: string): (host: string) => boolean {
  const names = allowed === 'all' ? [] : allowed.map((name) => hostnameOf(name))
  const extra = new Set(names)
  // `.example.com`: that name and every name under it, as Vite's server.allowedHosts reads it.
  const domains = names.filter((name) => name.startsWith('.') && name.length > 1)
  const underDomain = (name: string) =>
    domains.some((domain) => name.endsWith(domain) || name === domain.slice(1))
  const bound = hostnameOf(
    boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost,
  )
  const anyAddress = wildcardAddresses.has(bound) || wildcardAddresses.has(boundHost)
  return (host) => {
    if (!namesAHost(host)) return false
    const name = hostnameOf(host)
    const bare = name.startsWith('[') ? name.slice(1, -1) : name
    return (
      isLoopback(bare) ||
      name === bound ||
      extra.has(name) ||
      underDomain(name) ||
      (anyAddress && isIP(bare) !== 0)
    )
  }
}

/**
 * The Host check: a function answering null when the `Host` header is allowed (a
 * {@link namedHost}, or any with `all`), or the 403 to send.
 */
export function hostGuard(
  allowed: AllowedHosts,
  boundHost: string,
): (host: string | undefined) => ApiError | null {
  if (allowed === 'all') return () => null
  const named = namedHost(allowed, boundHost)
  // Host headers allowed lately: a client sends the same one on every request. Bounded, so
  // hostile headers cannot grow it.
  const passed = new Set<string>()
  return (host) => {
    if (host === undefined || passed.has(host)) return null
    if (named(host)) {
      if (passed.size >= PASSED_HOSTS) passed.clear()
      passed.add(host)
      return null
    }
    // A Host that names no host at all (empty, `localhost:80:81`) gets no advice to allow it.
    return ApiError.of(
      'permissionDenied',
      namesAHost(host)
        ? `host '${clip(host, 200)}' is not allowed: start the sandbox with ${flag('allowedHosts')} ${clip(hostnameOf(host), 200)} (or ${flag('allowedHosts')} all)`
        : `host '${clip(host, 200)}' is not a host name`,
    )
  }
}

/**
 * Which origins may call the sandbox from a browser: loopback by default, a list, or any.
 * `'named'`: loopback or listed, with credentials (cookies); `'any'`: allowed by `*` alone,
 * without them; false: refused.
 */
export type OriginPolicy = (origin: string) => 'named' | 'any' | false

/** `http(s)://localhost`, `127.0.0.1`, `[::1]` on any port (CONTRACT C3). */
export function isLoopbackOrigin(origin: string): boolean {
  const match = /^https?:\/\/(\[[^\]]*\]|[^/:]+)(?::(\d+))?$/i.exec(origin)
  if (!match || !portInRange(match[2])) return false
  const host = match[1]!.toLowerCase()
  return isLoopback(host.startsWith('[') ? host.slice(1, -1) : host)
}

/**
 * Loopback origins, plus the listed ones; `*` in the list allows any other too, without
 * credentials: a page of any site could otherwise send the browser's cookies for the sandbox
 * (a proxied upstream's session, `--proxy`) and read what comes back.
 */
export function originPolicy(origins: readonly string[] = []): OriginPolicy {
  const any = origins.includes(ANY_ORIGIN)
  const allowed = new Set(origins.map((origin) => originKey(trimSlashes(origin))))
  return (origin) =>
    isLoopbackOrigin(origin) || allowed.has(origin.toLowerCase()) || allowed.has(originKey(origin))
      ? 'named'
      : any && 'any'
}

/**
 * An origin as browsers serialize it, to compare: an http(s) one as the URL standard writes it
 * (lower case, its scheme's default port and a port's leading zeros left out:
 * `--cors-origin http://app.test:080` allows `Origin: http://app.test`, what a browser sends),
 * any other in lower case.
 */
function originKey(origin: string): string {
  const lower = origin.toLowerCase()
  if (!lower.startsWith('http://') && !lower.startsWith('https://')) return lower
  try {
    return new URL(lower).origin
  } catch {
    return lower
  }
}

/**
 * The 403 for a request from an origin that is not allowed, with the flag that allows it, or,
 * for what the flag cannot name (`null`: a sandboxed iframe, a `file://` page; two origins a
 * client joined), how else.
 */
export function originRefused(origin: string): ApiError {
  const shown = origin.slice(0, 200)
  const cors = flag('corsOrigin')
  const nameable = origin !== ANY_ORIGIN && optionSchema.corsOrigin().safeParse([origin]).success
  return ApiError.of(
    'permissionDenied',
    nameable
      ? `origin '${shown}' is not allowed: start the sandbox with ${cors} ${shown} (or ${cors} '*')`
      : `origin '${shown}' is not allowed, and is not an origin ${cors} can name: serve the page from an http(s) origin, or start the sandbox with ${cors} '*'`,
  )
}
