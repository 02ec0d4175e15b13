import { MAX_DELAY_MS } from '../state/runtime-config.js'
import type { CodeName } from '../contract/codes.js'
import { codes } from '../contract/codes.js'
import { KEYWORD_MAX_LENGTH, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../resources/list.js'
import type { OperationDocs } from '../http/operation.js'
import { schemaRef } from './components.js'

type ListSpec = NonNullable<OperationDocs['listSpec']>

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

const fieldsDescription = (fields: readonly string[]) =>
  `Comma-separated fields to return (${fields.join(', ')}); the records then carry exactly these fields.`

/** `fields`, for list and single-record reads. */
export function fieldsParameter(spec: ListSpec) {
  return {
    name: 'fields',
    in: 'query',
    description: fieldsDescription(spec.fields),
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: [...spec.fields] }, minItems: 1 },
  }
}

/** `page` and `pageSize` (CONTRACT B3), also taken by the request journal. */
export const pagingParameters = [
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  {
    name: 'pageSize',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT },
  },
]

/** The filters of the request journal (CONTRACT C2). */
export const journalFilterParameters = [
  { name: 'method', in: 'query', schema: { type: 'string' }, description: 'e.g. POST' },
  {
    name: 'path',
    in: 'query',
    schema: { type: 'string' },
    description:
      'A concrete path (`/users/5`) or a route template (`/users/{user_id}`), relative to the base path.',
  },
  { name: 'status', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 599 } },
]

/** The collection query parameters of CONTRACT B3 for one resource. */
export function listParameters(spec: ListSpec) {
  return [
    ...pagingParameters,
    { name: 'status', in: 'query', schema: { type: 'string', enum: [...spec.statuses] } },
    {
      name: 'sort',
      in: 'query',
      description: 'Stable; ties are broken by id ascending; text sorts case-insensitively.',
      schema: { type: 'string', enum: [...spec.sortable], default: 'id' },
    },
    {
      name: 'order',
      in: 'query',
      schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
    },
    fieldsParameter(spec),
    {
      name: 'keyword',
      in: 'query',
      description: 'Case-insensitive substring search.',
      schema: { type: 'string', minLength: 1, maxLength: KEYWORD_MAX_LENGTH },
    },
    ...Object.keys(spec.idFilters ?? {}).map((name) => ({
      name,
      in: 'query',
      description: 'Only records of this owner.',
      schema: { type: 'integer', minimum: 1 },
    })),
  ]
}

/** An error response with one example per business code it can carry. */
export function errorResponse(names: readonly CodeName[]) {
  const status = codes[names[0]!].status
  const extra: Record<string, unknown> = {
    'X-Request-Id': { $ref: '#/components/headers/RequestId' },
  }
  if (status === 401) extra['WWW-Authenticate'] = { $ref: '#/components/headers/WWWAuthenticate' }
  if (status === 429) extra['Retry-After'] = { $ref: '#/components/headers/RetryAfter' }
  return {
    description: [...new Set(names.map((name) => codes[name].message))].join('; '),
    headers: extra,
    content: {
      'application/json': {
        schema: { $ref: schemaRef('ErrorEnvelope') },
        examples: Object.fromEntries(
          names.map((name) => [
            name,
            {
              summary: `${codes[name].code}: ${codes[name].message}`,
              value: { code: codes[name].code, message: codes[name].message, data: null },
            },
          ]),
        ),
      },
    },
  }
}
