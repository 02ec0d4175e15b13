import type { ApiResponse } from '../../contract/exchange.js'
import { isPending } from '../../contract/exchange.js'
import { ApiError } from '../../contract/api-error.js'
import { clip, invalidParameter, plainId, rejectUnknown } from '../../contract/params.js'
import { limitFlag } from '../../state/limits.js'
import { DataService } from '../../resources/service.js'
import type { SandboxInstance } from '../../state/instance.js'
import { MAX_BODY_KEYS, readJsonBody } from '../body.js'
import type { Step } from '../compose.js'
import type { Answer, Context, PipelineHost } from '../context.js'
import { durably } from '../durable.js'
import type { OperationContext } from '../operation.js'
import { methodNotAllowed } from '../router.js'
import { noRouteFor } from './override.js'

/**
 * The operation itself: path ids (400), the query (400 in strict mode for one it does not
 * take), the operation's run (body, existence, validation, conflicts: in CONTRACT B4's order),
 * and, for a write that succeeded, its durability (a data file, browser storage). A path the
 * API lacks goes to the proxy target when there is one (CONTRACT C4), else 404 naming the
 * closest override; a method the route lacks is 405.
 */
export const operate: Step<Context, Answer> = {
  name: 'operate',
  run(c) {
    const { operation, instance, request, host } = c
    if (operation === null) {
      if (c.match !== null) throw methodNotAllowed(c.match.route, request.method)
      if (!host.unmatched) return noRouteFor(c)
      c.proxied = true
      return host.unmatched(c)
    }
    const { config } = instance
    const writes = operation.changesData ?? WRITE_METHODS.has(request.method)
    // Without a query string, no URLSearchParams is made for the request (operations only read it).
    const query = request.url.search === '' ? NO_QUERY : request.url.searchParams
    const ids = pathIds(c.match!.params)
    if (config.strict && !operation.docs.query) rejectUnknown(query, [])
    const context: OperationContext = {
      request,
      instance,
      data: dataServiceOf(host, instance),
      ids,
      query,
      principal: c.principal,
      strict: config.strict,
      basePath: host.basePath,
      wantsRepresentation: c.preferences?.representation ?? false,
      // The body and its size are remembered on the context, for the journal and the data file.
      readJson: () => readJsonBody(c, { seen: c, maxKeys: MAX_BODY_KEYS }),
    }
    const deletes = request.method === 'DELETE'
    if (writes && !deletes && !instance.roomToWrite()) throw dataFull(instance)
    const result = operation.run(context)
    if (!writes) return result
    const saved = (response: ApiResponse) => {
      if (response.status >= 300) return response
      instance.store.changed()
      if (!deletes) instance.wrote(Math.max(c.bytes ?? 0, response.body?.length ?? 0))
      return durably(instance, response)
    }
    return isPending(result) ? result.then(saved) : saved(result)
  },
}

/** 429 / 42900: the sandbox's writes added as much data as it takes (CONTRACT C3). */
function dataFull(instance: SandboxInstance): ApiError {
  const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`
  return ApiError.of(
    'rateLimited',
    `this sandbox's data grew by about ${mb(instance.writtenBytes)} through writes, the most it takes (${limitFlag('writtenBytes')}, ${mb(instance.limits.writtenBytes)}); delete some records, or reset it (POST /__sandbox/reset)`,
  )
}

/** The methods that may change data: a successful one is saved and announced. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const NO_QUERY: URLSearchParams = new URLSearchParams()

/**
 * Path ids must be positive integers (400 / 40000), e.g. `GET /users/create`. One of more digits
 * than a number holds exactly (`/users/99999999999999999999`) is one too, and no record has it:
 * it goes on as PAST_EVERY_ID, so the route answers it as any missing record,
 * 404 in its turn (CONTRACT B4: after the query and the body).
 */
function pathIds(params: Record<string, string>): Record<string, number> {
  const ids: Record<string, number> = {}
  for (const name in params) {
    const raw = params[name]!
    const id = plainId(raw)
    if (Number.isNaN(id))
      throw invalidParameter(`${name} must be a positive integer, got '${clip(raw)}'`)
    ids[name] = id
  }
  return ids
}

/**
 * The host's clock as ISO 8601 text, formatted once per millisecond: the writes of one
 * millisecond (dozens under load) share the string.
 */
function isoClock(host: PipelineHost): () => string {
  let last = Number.NaN
  let text = ''
  return () => {
    const now = host.now()
    if (now !== last) {
      last = now
      text = new Date(now).toISOString()
    }
    return text
  }
}

/** The data service of a sandbox as its operations see it, made once per sandbox. */
const services = new WeakMap<SandboxInstance, DataService>()

function dataServiceOf(host: PipelineHost, instance: SandboxInstance): DataService {
  let service = services.get(instance)
  if (service?.store !== instance.store || service.catalog !== host.catalog) {
    service = new DataService(host.catalog, instance.store, isoClock(host))
    services.set(instance, service)
  }
  return service
}
