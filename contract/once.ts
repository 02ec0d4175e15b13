/**
 * A value made on first use, then kept: for the schemas only validation and the OpenAPI
 * document need, so importing the package and answering a first read build none of them
 * (issue 18: building zod schemas is most of what an import costs a fresh test file).
 *
 * @example
 * const bodySchema = once(() => z.object({ name: z.string() }))
 * bodySchema().parse(input)
 */
export function once<T>(make: () => T): () => T {
  let made = false
  let value: T
  return () => {
    if (!made) {
      value = make()
      made = true
    }
    return value
  }
}
