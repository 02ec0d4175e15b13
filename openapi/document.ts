import { trimSlashes } from '../contract/params.js'
import type * as z from 'zod'
import type { CodeSpec } from '../contract/codes.js'
import { codeEntry } from '../contract/codes.js'
import type { ControlOperation } from '../http/control-types.js'
import { controlRouter } from '../http/control.js'
import type { Operation } from '../http/operation.js'
import type { Route } from '../http/router.js'
import { apiRoutes } from '../http/routes.js'
import type { Catalog } from '../resources/catalog.js'
import type { JsonSchema, Payload } from './components.js'
import { componentSchemas, envelopeId, schemaId, schemaRef } from './components.js'
import { errorResponse, headerParameters, queryParameters, responseHeaders } from './parameters.js'

export interface OpenApiOptions {
  /** The API's base URL: '' (default), '/api' or 'https://api.example.com/v1'. */
  baseUrl?: string
  /** The API to document, compiled (a sandbox passes its own). */
  catalog: Catalog
}

type Docs = Operation['docs'] | (ControlOperation['docs'] & Partial<Operation['docs']>)

const cache = new WeakMap<Catalog, Map<string, JsonSchema>>()

const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } }
const headerRefs = Object.keys(headerParameters).map((name) => ({
  $ref: `#/components/parameters/${name}`,
}))

/**
 * The OpenAPI 3.1 document of an API (CONTRACT parts A and B) and of the sandbox's control
 * API, generated from the route tables and the zod schemas the handlers validate with. (The
 * package's `openApiDocument` takes an API definition, the Shop API by default.)
 */
export function apiDocument(options: OpenApiOptions): JsonSchema {
  const baseUrl = trimSlashes(options.baseUrl ?? '')
  const { catalog } = options
  const documents = cache.get(catalog) ?? new Map<string, JsonSchema>()
  cache.set(catalog, documents)
  const cached = documents.get(baseUrl)
  if (cached) return cached
  const apiRouter = apiRoutes(catalog).router
  const control = controlRouter(catalog)
  const operations = [...apiRouter.routes, ...control.routes].flatMap((route) =>
    Object.values(route.operations as Record<string, { docs: Docs }>).map(
      (operation) => operation.docs,
    ),
  )
  const payloads: Payload[] = []
  for (const docs of operations) {
    if (docs.success.data) payloads.push({ data: docs.success.data, list: docs.success.list })
    if (docs.success.representation) payloads.push({ data: docs.success.representation })
  }
  const bodies = operations.flatMap((docs) => (docs.body ? [docs.body] : []))
  const origin = /^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl) ? new URL(baseUrl).origin : ''
  const document = {
    openapi: '3.1.0',
    info: {
      title: catalog.api.title,
      version: '1.0.0',
      ...(catalog.api.description ? { description: catalog.api.description } : {}),
    },
    servers: [{ url: baseUrl || '/' }],
    security: [{ bearerAuth: [] }],
    tags: [
      ...catalog.resources.map(({ name, definition }) => ({
        name,
        ...(definition.docs?.description ? { description: definition.docs.description } : {}),
      })),
      { name: 'sessions' },
      { name: 'sandbox', description: 'The sandbox’s control API: not part of the real API.' },
    ],
    paths: {
      ...Object.fromEntries(apiRouter.routes.map((route) => [route.path, pathItem(route, false)])),
      ...Object.fromEntries(
        control.routes.map((route) => [
          `/__sandbox${route.path === '/' ? '' : route.path}`,
          { servers: [{ url: origin || '/' }], ...pathItem(route, true) },
        ]),
      ),
    },
    components: {
      schemas: componentSchemas(payloads, bodies),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `A token from POST /sessions${catalog.accounts.tokens.length ? `, or a fixed sandbox token: ${catalog.accounts.tokens.map(({ token, userId, description }) => `${token} (${description ?? `user ${userId}`})`).join(', ')}` : ''}.`,
        },
      },
      parameters: headerParameters,
      headers: responseHeaders,
    },
  }
  documents.set(baseUrl, document)
  return document
}

function pathItem(route: Route<{ docs: Docs }>, control: boolean) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description:
      'A positive integer (anything else is 400 / 40000); one no record has is 404, however long.',
    schema: { type: 'integer', minimum: 1 },
  }))
  return Object.fromEntries(
    Object.entries(route.operations).map(([method, operation]) => [
      method.toLowerCase(),
      operationObject(
        operation.docs,
        pathParameters,
        control,
        (operation as Operation).auth !== false && !control,
      ),
    ]),
  )
}

function operationObject(docs: Docs, pathParameters: object[], control: boolean, auth: boolean) {
  const parameters = [...pathParameters]
  if (docs.query) parameters.push(...queryParameters(docs.query))
  if (!control) parameters.push(...headerRefs)
  return {
    operationId: docs.operationId,
    summary: docs.summary,
    ...(docs.description ? { description: docs.description } : {}),
    tags: control ? ['sandbox'] : (docs.tags ?? []),
    ...(auth ? {} : { security: [] }),
    parameters,
    ...(docs.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: schemaRef(schemaId(docs.body)) } } },
          },
        }
      : {}),
    responses: {
      ...successResponses(docs),
      ...errorResponses(docs, pathParameters.length > 0, auth, control),
    },
  }
}

function successResponses(docs: Docs) {
  const { status, data, list, representation } = docs.success
  const envelope = (
    payload: { data: z.ZodType; list?: boolean | undefined },
    description: string,
    headers = {},
  ) => ({
    description,
    headers: { ...requestIdHeader, ...headers },
    content: { 'application/json': { schema: { $ref: schemaRef(envelopeId(payload)) } } },
  })
  if (!data) {
    return {
      [status]: { description: 'Done; no body.', headers: requestIdHeader },
      ...(representation
        ? {
            200: envelope(
              { data: representation },
              'Deleted; the record, under Prefer: return=representation.',
            ),
          }
        : {}),
    }
  }
  const location = status === 201 ? { Location: { $ref: '#/components/headers/Location' } } : {}
  return { [status]: envelope({ data, list }, list ? 'A page of records.' : 'Success.', location) }
}

function errorResponses(docs: Docs, hasIds: boolean, auth: boolean, control: boolean) {
  const specs: CodeSpec[] = ['invalidParameter', ...(docs.errors ?? [])]
  if (auth) specs.push('authenticationRequired', 'invalidToken', 'permissionDenied')
  if (docs.body)
    specs.push('malformedJson', 'payloadTooLarge', 'unsupportedMediaType', 'validationFailed')
  if (hasIds) specs.push('notFound')
  if (!control) specs.push('rateLimited', 'internalError', 'serviceUnavailable')
  const byStatus = new Map<number, Map<string, CodeSpec>>()
  for (const spec of specs) {
    const { key, status } = codeEntry(spec)
    const group = byStatus.get(status) ?? new Map<string, CodeSpec>()
    if (!group.has(key)) group.set(key, spec)
    byStatus.set(status, group)
  }
  return {
    ...Object.fromEntries(
      [...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([status, group]) => [status, errorResponse([...group.values()])]),
    ),
    default: {
      description: 'Any other error, e.g. one forced with Prefer: code=<status>.',
      headers: requestIdHeader,
      content: { 'application/json': { schema: { $ref: schemaRef('ErrorEnvelope') } } },
    },
  }
}
