import * as z from 'zod'
import { documented, schemaRegistry } from '../contract/registry.js'

export type JsonSchema = Record<string, unknown>

/** Where a component schema lives in the document. */
export const schemaRef = (id: string) => `#/components/schemas/${id}`

/** A success payload: what `data` holds, and whether it is a list payload. */
export interface Payload {
  data: z.ZodType
  list?: boolean | undefined
}

/** Component id of a documented schema. */
export function schemaId(schema: z.ZodType): string {
  const id = schemaRegistry.get(schema)?.id
  if (!id) throw new Error('an OpenAPI response or body schema needs an id in the schema registry')
  return id
}

/** Component id of the envelope around a payload: `UserResponse`, `UserListResponse`. */
export function envelopeId({ data, list }: Payload): string {
  return `${schemaId(data)}${list ? 'List' : ''}Response`
}

/** The failure envelope of CONTRACT A: a business code, a message, `data: null`. */
const errorEnvelope = documented(z.object({ code: z.int(), message: z.string(), data: z.null() }), {
  id: 'ErrorEnvelope',
  description: 'Every failure. Branch on `code` (CONTRACT B5), never on `message`.',
})

const registered = new Set<string>(['ErrorEnvelope'])

/** Registers the success envelope of each payload once (the registry outlives one document). */
function registerEnvelopes(payloads: readonly Payload[]): void {
  for (const payload of payloads) {
    const id = envelopeId(payload)
    if (registered.has(id)) continue
    registered.add(id)
    const data = payload.list
      ? z.object({
          list: z.array(payload.data),
          total: documented(z.int().min(0), {
            description: 'Records matching the filters, on every page.',
          }),
          page: z.int().min(1),
          pageSize: z.int().min(1).max(100),
        })
      : payload.data
    documented(z.object({ code: z.literal(0), message: z.literal('success'), data }), { id })
  }
}

/**
 * The component schemas, generated from the zod schemas the handlers validate with (never a
 * second copy of a record's shape), plus an envelope per success payload. Request bodies are
 * rendered as input (defaults make fields optional, unknown fields are allowed: the API ignores
 * them), everything else as output (exactly these fields).
 */
export function componentSchemas(
  payloads: readonly Payload[],
  bodies: readonly z.ZodType[],
): Record<string, JsonSchema> {
  void errorEnvelope
  registerEnvelopes(payloads)
  const render = (io: 'input' | 'output') =>
    z.toJSONSchema(schemaRegistry, {
      target: 'draft-2020-12',
      io,
      uri: schemaRef,
      metadata: schemaRegistry,
      unrepresentable: 'any',
    }).schemas as Record<string, JsonSchema>
  const output = render('output')
  const input = render('input')
  const inputIds = new Set(bodies.map(schemaId))
  return Object.fromEntries(
    Object.keys(output)
      .sort()
      .map((id) => {
        const {
          $schema: _schema,
          $id: _id,
          ...schema
        } = (inputIds.has(id) ? input[id] : output[id]) ?? {}
        return [id, inputIds.has(id) ? defaultsInDescriptions(schema) : schema]
      }),
  )
}

/**
 * Request bodies state their defaults in words, not as `default`: openapi-typescript 7 (the
 * usual client generator) types a property with a `default` as required even in a request body
 * (openapi-ts/openapi-typescript#1741, #2012), which would force clients to send it.
 */
function defaultsInDescriptions(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (!properties) return schema
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        if (!('default' in property)) return [name, property]
        const { default: value, ...rest } = property
        const note = `Default: ${JSON.stringify(value)}.`
        return [
          name,
          { ...rest, description: rest.description ? `${rest.description} ${note}` : note },
        ]
      }),
    ),
  }
}
