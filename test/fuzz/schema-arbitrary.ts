import fc from 'fast-check'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON document
export type Json = Record<string, any>

/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI 3.1 document: what the document
 * says a value may be, generated (the fuzzer reads the document, not the code). Covers what
 * documents of this kind use: `$ref`, objects with `required`, arrays, strings with `pattern`,
 * `format`, lengths, integers and numbers with bounds, `enum`, `const`, `anyOf`/`oneOf`, types
 * with `null`. `customize` may answer first for a schema (by its description, say).
 */
export function arbitraryFor(
  document: Json,
  schema: Json,
  customize?: (schema: Json) => fc.Arbitrary<unknown> | undefined,
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = resolve(document, schema)
  const custom = customize?.(resolved)
  if (custom) return custom
  const next = (inner: Json) => arbitraryFor(document, inner, customize, depth + 1)
  if ('const' in resolved) return fc.constant(resolved.const)
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]))
  const alternatives = (resolved.anyOf ?? resolved.oneOf) as Json[] | undefined
  if (alternatives) return fc.oneof(...alternatives.map(next))
  const type = resolved.type as string | string[] | undefined
  if (Array.isArray(type)) return fc.oneof(...type.map((one) => next({ ...resolved, type: one })))
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer': {
      const bounded = fc.integer({
        min: Math.max(resolved.minimum ?? -1e6, Number.MIN_SAFE_INTEGER),
        max: Math.min(resolved.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
      })
      // No maximum: the document allows any integer, the largest ones too.
      return resolved.maximum === undefined
        ? fc.oneof(
            { weight: 9, arbitrary: bounded },
            { weight: 1, arbitrary: fc.constantFrom(2 ** 53 + 2, 1e20) },
          )
        : bounded
    }
    case 'number':
      return fc.double({
        min: resolved.minimum ?? -1e6,
        max: resolved.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'string':
      return stringFor(resolved)
    case 'array': {
      const items = resolved.items ? next(resolved.items as Json) : fc.anything()
      return fc.array(items, {
        minLength: resolved.minItems ?? 0,
        maxLength: Math.min(resolved.maxItems ?? 4, (resolved.minItems ?? 0) + 4),
      })
    }
    case 'object':
    case undefined: {
      const properties = (resolved.properties ?? {}) as Record<string, Json>
      if (type === undefined && Object.keys(properties).length === 0)
        return depth > 3 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 })
      const required = new Set((resolved.required ?? []) as string[])
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, next(inner)])),
        { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) },
      )
    }
    default:
      return fc.anything()
  }
}

function stringFor(schema: Json): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = schema.maxLength ?? 40
  const fits = (text: string) =>
    text.length >= minLength &&
    text.length <= maxLength &&
    (schema.pattern === undefined || new RegExp(schema.pattern as string, 'u').test(text))
  if (schema.format === 'email') return fc.emailAddress().filter(fits)
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((date) => date.toISOString())
  if (schema.pattern !== undefined)
    return fc.stringMatching(new RegExp(schema.pattern as string)).filter(fits)
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 30) })
}

/** A schema with its `$ref` followed (within the document). */
export function resolve(document: Json, schema: Json): Json {
  let current = schema
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 20; hops++) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/')
    current = path.reduce<Json>((node, key) => node?.[key] as Json, document)
  }
  return current ?? {}
}
