import { z } from 'zod'

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
 * shared field schema can be documented differently in different places).
 *
 * @example
 * const userSchema = documented(z.object({ … }), { id: 'User' })
 */
export function documented<T extends z.ZodType>(schema: T, docs: SchemaDocs): T {
  const copy = schema.clone() as T
  schemaRegistry.add(copy, docs)
  return copy
}
