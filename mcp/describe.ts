import type { Target } from './target.js'
import { codes as genericCodes } from '../contract/codes.js'
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/body.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON document
type Json = Record<string, any>

/** What an agent needs to know of the API, read from what the sandbox serves. */
export interface ApiDescription {
  structured: Record<string, unknown>
  /** The same as a short reference page. */
  markdown: string
}

/**
 * The OpenAPI document the sandbox serves: at `/openapi.json`, or under the base path (a page's
 * sandbox keeps the page's own `/openapi.json`).
 */
export async function openApiOf(target: Target): Promise<Json> {
  for (const path of ['/openapi.json', `${target.basePath}/openapi.json`]) {
    const answer = await target.send('GET', path, {})
    if (answer.status !== 200) continue
    const document = openApiDocumentIn(answer.text)
    if (document) return document
    // Not the parser's words ("Unexpected token '<'…"): what answered, and what it sent.
    throw new Error(
      `${target.where} is not a shop-sandbox server (GET ${path} answered 200 with no OpenAPI document: ${answer.text.slice(0, 200)})`,
    )
  }
  throw new Error('the sandbox serves no OpenAPI document (openApiPath: false?)')
}

/** An OpenAPI document read from a text, or null (nested deeper than a body may be: not read). */
function openApiDocumentIn(text: string): Json | null {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return null
  try {
    const document = JSON.parse(text) as unknown
    return typeof document === 'object' &&
      document !== null &&
      typeof (document as Json).openapi === 'string' &&
      typeof (document as Json).components === 'object'
      ? (document as Json)
      : null
  } catch {
    return null
  }
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** A schema in a few words: `integer ≥ 1`, `"active" | "inactive"`, `string (e-mail)`. */
function typeOf(schema: Json, document: Json): string {
  if (schema.$ref) return String(schema.$ref).split('/').at(-1)!
  if (schema.enum) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(' | ')
  if (schema.type === 'array') return `${typeOf(schema.items ?? {}, document)}[]`
  const bounds = [
    schema.minimum !== undefined && schema.minimum !== 0 ? `≥ ${schema.minimum}` : '',
    schema.maximum !== undefined && schema.maximum < 2 ** 53 - 1 ? `≤ ${schema.maximum}` : '',
    schema.format ? `(${schema.format})` : '',
  ].filter(Boolean)
  return [schema.type ?? (schema.anyOf ? 'one of several' : 'any'), ...bounds].join(' ')
}

/** The API described from its OpenAPI document, `GET /__sandbox` and the scenarios. */
export async function describeApi(
  target: Target,
  control: (method: string, path: string) => Promise<unknown>,
): Promise<ApiDescription> {
  // Asked at once; a failure told in this order, the document's first (it says best what
  // answered), not whichever came back first.
  const settled = await Promise.allSettled([
    openApiOf(target),
    control('GET', '') as Promise<Json>,
    control('GET', '/scenarios?pageSize=100') as Promise<Json>,
  ])
  for (const one of settled) if (one.status === 'rejected') throw one.reason
  const [document, info, scenarios] = settled.map(
    (one) => (one as PromiseFulfilledResult<Json>).value,
  ) as [Awaited<ReturnType<typeof openApiOf>>, Json, Json]
  const { api } = info
  const schemas = document.components.schemas as Json
  const resources = (api.resources as Array<{ name: string; singular: string }>).map(
    ({ name, singular }) => {
      const record = schemas[capitalized(singular)] ?? {}
      const required = new Set<string>(record.required ?? [])
      const fields = Object.fromEntries(
        Object.entries((record.properties ?? {}) as Json).map(([field, schema]) => [
          field,
          {
            type: typeOf(schema, document),
            ...(schema.readOnly ? { readOnly: true } : {}),
            ...(required.has(field) ? {} : { optional: true }),
            ...(schema.description ? { description: schema.description } : {}),
          },
        ]),
      )
      const list = document.paths[`/${name}`]?.get ?? {}
      const query = ((list.parameters ?? []) as Json[])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({
          name: parameter.name,
          type: typeOf(parameter.schema ?? {}, document),
          ...(parameter.schema?.default !== undefined ? { default: parameter.schema.default } : {}),
          ...(parameter.description ? { description: parameter.description } : {}),
        }))
      return { name, singular, fields, query }
    },
  )
  const routes: Array<{ method: string; path: string; summary: string }> = []
  const codes = new Map<number, { code: number; status: number; message: string }>()
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      if (!path.startsWith('/__sandbox'))
        routes.push({
          method: method.toUpperCase(),
          path: `${api.basePath}${path}`,
          summary: operation.summary ?? '',
        })
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Json)) {
        const examples = response.content?.['application/json']?.examples ?? {}
        for (const example of Object.values(examples as Json)) {
          const value = example.value
          if (typeof value?.code === 'number' && value.code !== 0 && !codes.has(value.code))
            codes.set(value.code, {
              code: value.code,
              status: Number(status),
              message: value.message,
            })
        }
      }
    }
  }
  // The codes every API the sandbox serves shares (405 / 40500 is on no operation of the
  // document, a proxy's 502 only with --proxy), where the document's examples gave none.
  for (const generic of Object.values(genericCodes))
    if (generic.code !== 0 && !codes.has(generic.code)) codes.set(generic.code, { ...generic })
  const structured = {
    title: api.title,
    basePath: api.basePath,
    resources,
    routes,
    codes: [...codes.values()].sort((a, b) => a.code - b.code),
    tokens: api.tokens,
    scenarios: (scenarios.list as Json[]).map(({ name, description }) => ({ name, description })),
    scenario: info.scenario,
    envelope:
      'Every answer with a body: { code, message, data } (code 0 on success; data null on an error). A list: data { list, total, page, pageSize }.',
  }
  return { structured, markdown: markdownOf(structured) }
}

/** The description as a short reference page (an MCP resource, and describe_api's text). */
function markdownOf(described: Json): string {
  const lines = [`# ${described.title} (shop-sandbox)`, '', described.envelope, '']
  lines.push(`Base path: ${described.basePath || '/'}. Tokens (Authorization: Bearer <token>):`)
  for (const token of described.tokens)
    lines.push(
      `- ${token.token}: user ${token.userId}${token.admin ? ', an admin' : ''}${token.description ? ` (${token.description})` : ''}`,
    )
  lines.push('', '## Resources')
  for (const resource of described.resources as Json[]) {
    lines.push('', `### ${resource.name}`, '')
    for (const [field, about] of Object.entries(resource.fields as Json))
      lines.push(
        `- ${field}: ${about.type}${about.readOnly ? ', read-only' : ''}${about.description ? ` — ${about.description}` : ''}`,
      )
    if (resource.query.length > 0)
      lines.push(
        `- list query: ${(resource.query as Json[]).map((parameter) => `${parameter.name} (${parameter.type})`).join(', ')}`,
      )
  }
  lines.push('', '## Routes', '')
  for (const route of described.routes as Json[])
    lines.push(`- ${route.method} ${route.path}: ${route.summary}`)
  lines.push('', '## Business codes', '')
  for (const code of described.codes as Json[])
    lines.push(`- ${code.code} (${code.status}): ${code.message}`)
  lines.push('', `## Scenarios (now: ${described.scenario})`, '')
  for (const scenario of described.scenarios as Json[])
    lines.push(`- ${scenario.name}: ${scenario.description}`)
  return lines.join('\n')
}
