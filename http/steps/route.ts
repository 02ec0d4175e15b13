import { noContent } from '../../contract/envelope.js'
import type { ApiRequest, ApiResponse } from '../../contract/exchange.js'
import type { SandboxInstance } from '../../state/instance.js'
import { authenticate } from '../auth.js'
import type { Operation } from '../operation.js'
import type { PipelineHost } from '../pipeline.js'
import { forcedError, parsePrefer } from '../preferences.js'
import type { Route } from '../router.js'
import { allowHeader, methodNotAllowed } from '../router.js'
import { injectedFault } from './faults.js'
import { noRouteFor, overridden } from './overrides.js'
import { authorize } from './permissions.js'
import { run } from './run.js'
import type { Seen } from './seen.js'

/**
 * Steps 4 to 8 after the delay, in CONTRACT B4's order: an injected fault; the route (404, 405,
 * a preflight's 204); authentication (401); a forced answer (`Prefer: code=`, before permission
 * as in Prism); permission (403); an override (C2); then the operation. On a path the API lacks,
 * an override answers without a token (a stub).
 */
export function route(
  host: PipelineHost,
  instance: SandboxInstance,
  request: ApiRequest,
  seen: Seen,
): ApiResponse | Promise<ApiResponse> {
  const fault = injectedFault(instance)
  if (fault) return fault
  const { path } = seen
  const match = host.routes.router.match(path)
  if (!match) {
    const stub = overridden(host, instance, request, seen, null, () =>
      instance.overrides.methodsAt(path),
    )
    // No route, no override: the proxy target (CONTRACT C4) when there is one, else 404.
    const unmatched = () => {
      if (!host.unmatched) return noRouteFor(instance, request, seen)
      seen.proxied = true
      return host.unmatched(request, seen)
    }
    if (stub === null) return unmatched()
    return stub.then((answer) => answer ?? unmatched())
  }
  if (request.method === 'OPTIONS') return noContent({ allow: allowHeader(match.route) })
  const allow = () => allowHeader(match.route)
  const operation =
    match.route.operations[(request.method === 'HEAD' ? 'GET' : request.method) as 'GET']
  if (!operation) {
    // An override naming a method the route lacks is a stub of that method (no token needed);
    // a method-less one applies to the route's methods only: 405 comes first.
    const stub = overridden(host, instance, request, seen, routeMethods(match.route), allow)
    if (stub === null) throw methodNotAllowed(match.route, request.method)
    return stub.then(
      (answer) => answer ?? Promise.reject(methodNotAllowed(match.route, request.method)),
    )
  }
  const principal =
    operation.auth === false
      ? null
      : authenticate(request.header('authorization'), instance, host.catalog.accounts)
  const preferences = parsePrefer(request)
  if (preferences.code !== undefined) {
    const forced = forcedError(preferences, allow(), operation.conflict)
    if (forced) throw forced
  }
  if (principal) authorize(operation, principal, match.params, host.routes.ownParam)
  const proceed = () =>
    run(
      host,
      instance,
      request,
      seen,
      operation,
      match.params,
      principal,
      preferences.representation,
    )
  const override = overridden(host, instance, request, seen, routeMethods(match.route), allow)
  if (override === null) return proceed()
  return override.then((answer) => answer ?? proceed())
}

/** The methods of a route, HEAD with GET: what a method-less override on it applies to. */
const methodsOfRoute = new WeakMap<Route<Operation>, ReadonlySet<string>>()
function routeMethods(route: Route<Operation>): ReadonlySet<string> {
  let methods = methodsOfRoute.get(route)
  if (!methods) {
    methods = new Set(Object.keys(route.operations))
    methodsOfRoute.set(route, methods)
  }
  return methods
}
