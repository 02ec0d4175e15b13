import { ApiError } from '../contract/api-error.js'
import { JSON_CONTENT_TYPE } from '../contract/envelope.js'
import type { ApiRequest, ApiResponse } from '../contract/exchange.js'
import { apiDocument } from '../openapi/document.js'
import type { ResolvedOptions } from './options.js'

/** `GET /openapi.json`: the OpenAPI document itself (not an envelope), for any tool to read. */
export function openApiResponse(
  request: ApiRequest,
  options: Pick<ResolvedOptions, 'origin' | 'basePath' | 'catalog'>,
): ApiResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw ApiError.of(
      'methodNotAllowed',
      `${request.method} is not allowed on /openapi.json; allowed: GET`,
      { allow: 'GET' },
    )
  }
  const document = apiDocument({
    baseUrl: `${options.origin ?? ''}${options.basePath}`,
    catalog: options.catalog,
  })
  let body = texts.get(document)
  if (body === undefined) texts.set(document, (body = JSON.stringify(document)))
  return { status: 200, code: 0, headers: { 'content-type': JSON_CONTENT_TYPE }, body }
}

/**
 * Each document's text, written once: the document is made once per API and base URL, and its
 * 166 kB written at every request cost ~8 ms of the loop (500 clients pipelining it held the
 * server for seconds).
 */
const texts = new WeakMap<object, string>()
