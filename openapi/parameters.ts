import { MAX_DELAY_MS } from '../state/runtime-config.js'
import type { CodeDefinition, CodeSpec } from '../contract/codes.js'
import { codeEntry } from '../contract/codes.js'
import * as z from 'zod'
import type { QuerySchema } from '../resources/query.js'
import { schemaRef } from './components.js'

/** Headers every API operation accepts (sandbox features included). */
export const headerParameters = {
  Prefer: {
    name: 'Prefer',
    in: 'header',
    description:
      '`return=representation`: DELETE answers 200 with the deleted record instead of 204. `code=<status>` (sandbox): answer that status with its business code, as Stoplight Prism does.',
    schema: { type: 'string', examples: ['return=representation', 'code=503'] },
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    description: 'Echoed in the response; one is generated when absent.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' },
  },
  SandboxId: {
    name: 'X-Sandbox-Id',
    in: 'header',
    description: 'Sandbox only: use your own copy of the seeded data, created on first use.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
  },
  SandboxDelay: {
    name: 'X-Sandbox-Delay',
    in: 'header',
    description: 'Sandbox only: delay this response by that many milliseconds.',
    schema: { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS },
  },
} as const

export const responseHeaders = {
  RequestId: { description: 'The request id (echoed when sent).', schema: { type: 'string' } },
  Location: { description: 'Where the new record is.', schema: { type: 'string' } },
  WWWAuthenticate: { description: 'Always `Bearer`.', schema: { type: 'string', const: 'Bearer' } },
  RetryAfter: { description: 'Seconds to wait.', schema: { type: 'integer' } },
}

/** The OpenAPI parameters of a query, from the very schema that validates it. */
export function queryParameters(schema: QuerySchema) {
  return Object.entries(schema).flatMap(([name, parameter]) => {
    if (parameter.hidden) return []
    const { $schema: _, ...json } = z.toJSONSchema(parameter.schema, {
      target: 'draft-2020-12',
      io: 'input',
    }) as Record<string, unknown>
    return [
      {
        name,
        in: 'query',
        ...(parameter.description ? { description: parameter.description } : {}),
        ...(parameter.list ? { style: 'form', explode: false } : {}),
        schema: json,
      },
    ]
  })
}

/** An error response with one example per business code it can carry (all of one status). */
export function errorResponse(specs: readonly (CodeSpec | CodeDefinition)[]) {
  const entries = specs.map(codeEntry)
  const status = entries[0]!.status
  const extra: Record<string, unknown> = {
    'X-Request-Id': { $ref: '#/components/headers/RequestId' },
  }
  if (status === 401) extra['WWW-Authenticate'] = { $ref: '#/components/headers/WWWAuthenticate' }
  if (status === 429) extra['Retry-After'] = { $ref: '#/components/headers/RetryAfter' }
  return {
    description: [...new Set(entries.map((entry) => entry.message))].join('; '),
    headers: extra,
    content: {
      'application/json': {
        schema: { $ref: schemaRef('ErrorEnvelope') },
        examples: Object.fromEntries(
          entries.map(({ key, code, message }) => [
            key,
            { summary: `${code}: ${message}`, value: { code, message, data: null } },
          ]),
        ),
      },
    },
  }
}
