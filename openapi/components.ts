import * as z from 'zod'
import { trimmedPatterns } from '../contract/fields.js'
import { documented, schemaRegistry } from '../contract/registry.js'
import { PAGE_SIZE_MAX } from '../resources/query.js'
import { once } from '../contract/once.js'

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
const errorEnvelope = once(() =>
  documented(z.object({ code: z.int(), message: z.string(), data: z.null() }), {
    id: 'ErrorEnvelope',
    description: 'Every failure. Branch on `code` (CONTRACT B5), never on `message`.',
  }),
)

const envelopes = new WeakMap<z.ZodType, Map<boolean, z.ZodType>>()

/** The success envelope around a payload, made once per payload schema and kind. */
function envelopeOf(payload: Payload): z.ZodType {
  const list = payload.list === true
  const kinds = envelopes.get(payload.data) ?? new Map<boolean, z.ZodType>()
  envelopes.set(payload.data, kinds)
  let envelope = kinds.get(list)
  if (!envelope) {
    const data = list
      ? z.object({
          list: z.array(payload.data),
          total: documented(z.int().min(0), {
            description: 'Records matching the filters, on every page.',
          }),
          page: z.int().min(1),
          pageSize: z.int().min(1).max(PAGE_SIZE_MAX),
        })
      : payload.data
    envelope = documented(z.object({ code: z.literal(0), message: z.literal('success'), data }), {
      id: envelopeId(payload),
    })
    kinds.set(list, envelope)
  }
  return envelope
}

/** The documented schemas `schema` holds (itself included), by id, as components. */
function rendered(schema: z.ZodType, io: 'input' | 'output'): Record<string, JsonSchema> {
  const { $defs } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    metadata: schemaRegistry,
    unrepresentable: 'any',
    // Trimmed text: its pattern says what is taken; a raw length would count the spaces.
    override: ({ zodSchema, jsonSchema }) => {
      const pattern = trimmedPatterns.get(zodSchema as unknown as z.ZodType)
      if (pattern === undefined) return
      delete jsonSchema.minLength
      delete jsonSchema.maxLength
      jsonSchema.pattern = pattern
    },
  }) as { $defs?: Record<string, JsonSchema> }
  return JSON.parse(
    JSON.stringify($defs ?? {}).replaceAll('"#/$defs/', `"${schemaRef('')}`),
  ) as Record<string, JsonSchema>
}

/**
 * The component schemas of one document, generated from the zod schemas the handlers validate
 * with (never a second copy of a record's shape), plus an envelope per success payload: only
 * what this document's operations refer to. Request bodies are rendered as input (defaults make
 * fields optional, unknown fields are allowed: the API ignores them), everything else as output
 * (exactly these fields).
 */
export function componentSchemas(
  payloads: readonly Payload[],
  bodies: readonly z.ZodType[],
): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {}
  const add = (found: Record<string, JsonSchema>) => {
    for (const [id, schema] of Object.entries(found)) components[id] ??= schema
  }
  add(rendered(errorEnvelope(), 'output'))
  for (const payload of payloads) add(rendered(envelopeOf(payload), 'output'))
  for (const body of bodies) add(rendered(body, 'output'))
  for (const body of bodies) {
    const id = schemaId(body)
    components[id] = defaultsInDescriptions(rendered(body, 'input')[id]!)
  }
  return Object.fromEntries(
    Object.keys(components)
      .sort()
      .map((id) => [id, components[id]!]),
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
