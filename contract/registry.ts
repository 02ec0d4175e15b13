import * as z from 'zod'

/** Documentation attached to a schema: its component name, a description, read-only-ness. */
export interface SchemaDocs {
  /** Component name in the OpenAPI document, e.g. `User`. */
  id?: string
  description?: string
  readOnly?: boolean
}

/**
 * The sandbox's own schema registry. zod's global registry is shared with the app that
 * installs the sandbox (zod is one module for both), so ids like `User` must not go there.
 */
export const schemaRegistry = z.registry<SchemaDocs>()

/**
 * A copy of `schema` documented in {@link schemaRegistry} (the original is left alone, so a
 * shared field schema can be documented differently in different places). A schema made for one
 * place needs no copy: `z.object({ … }).register(schemaRegistry, docs)` (a copy is a second
 * construction, which a fresh test file pays at import).
 *
 * @example
 * const userSchema = documented(z.object({ … }), { id: 'User' })
 */
export function documented<T extends z.ZodType>(schema: T, docs: SchemaDocs): T {
  const copy = schema.clone() as T
  schemaRegistry.add(copy, docs)
  return copy
}

/**
 * The fields of an object schema (and of objects in its arrays) documented as read-only: what
 * a body may carry but no client may write. Derived, so the schema stays the only place.
 *
 * @example
 * readOnlyFields(userSchema) // ['id', 'createdAt', 'updatedAt']
 */
export function readOnlyFields(schema: z.ZodObject): string[] {
  const fields: string[] = []
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (schemaRegistry.get(field)?.readOnly) fields.push(key)
    if (field instanceof z.ZodArray && field.element instanceof z.ZodObject) {
      fields.push(...readOnlyFields(field.element))
    }
  }
  return [...new Set(fields)]
}
