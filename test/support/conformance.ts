import type { ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { openApiDocument } from '../../index.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON document
type Json = Record<string, any>

/** The same document with the records' `required` lists dropped: what `?fields=` answers match. */
function relaxed(source: Json): Json {
  const copy = structuredClone(source)
  // A record component is what a collection read lists: `…ListResponse` → data.list.items.
  for (const [id, schema] of Object.entries(copy.components.schemas as Json)) {
    if (!id.endsWith('ListResponse')) continue
    const record = schema.properties.data.properties.list.items.$ref.split('/').at(-1)
    delete copy.components.schemas[record].required
  }
  return copy
}

function compilerFor(source: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
  ajv.addSchema({ ...source, $id: 'openapi' })
  const cache = new Map<string, ValidateFunction>()
  return (ref: string) => {
    let validate = cache.get(ref)
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi${ref}` })
      cache.set(ref, validate)
    }
    return validate
  }
}

/** The conformance check of one OpenAPI document. */
export type Conformance = (
  method: string,
  url: URL,
  apiBasePath: string,
  status: number,
  body: unknown,
  text: string,
) => void

/** A conformance check against `document` (a sandbox with resources of its own has its own). */
export function conformanceTo(document: Json): Conformance {
  const strict = compilerFor(document)
  const sparse = compilerFor(relaxed(document))
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`),
  }))
  const check = (ref: string, body: unknown, where: string, fieldsSelected: boolean) => {
    const validate = (fieldsSelected ? sparse : strict)(ref)
    if (!validate(body)) {
      const errors = validate.errors
        ?.slice(0, 5)
        .map((error) => `${error.instancePath} ${error.message}`)
        .join('; ')
      throw new Error(
        `conformance: ${where}: body does not match ${ref}: ${errors}\n${JSON.stringify(body).slice(0, 300)}`,
      )
    }
  }

  /**
   * Checks one response against the OpenAPI document: the status is declared for that
   * operation (or covered by `default`), and the body matches the declared schema. Throws,
   * naming the difference, so a handler and the document can never drift apart unnoticed.
   */
  return (method, url, apiBasePath, status, body, text) => {
    let path = url.pathname
    if (url.pathname === '/openapi.json' || method === 'OPTIONS' || method === 'HEAD') return
    if (!path.startsWith('/__sandbox') && apiBasePath && path.startsWith(apiBasePath))
      path = path.slice(apiBasePath.length) || '/'
    const where = `${method} ${url.pathname}${url.search} → ${status}`
    const match = templates.find(({ pattern }) => pattern.test(path))
    const operation = match && document.paths[match.template][method.toLowerCase()]
    if (!operation) {
      if (status !== 404 && status !== 405 && status !== 400 && status < 500 && status !== 429) {
        throw new Error(`conformance: ${where} has no operation in the OpenAPI document`)
      }
      check('#/components/schemas/ErrorEnvelope', body, where, false)
      return
    }
    const response = operation.responses[String(status)] ?? operation.responses.default
    if (!response)
      throw new Error(`conformance: ${where}: status ${status} is not declared for this operation`)
    const schema = response.content?.['application/json']?.schema
    if (!schema) {
      if (text !== '')
        throw new Error(
          `conformance: ${where}: the document declares no body, got ${text.slice(0, 100)}`,
        )
      return
    }
    check(schema.$ref, body, where, url.searchParams.has('fields'))
  }
}

/** The check against the shop's own document. */
export const assertConforms = conformanceTo(openApiDocument() as Json)
