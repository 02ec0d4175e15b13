import fc from 'fast-check'

/** Methods, including ones the API does not know and odd spellings. */
export const method = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PROPFIND',
  'TRACE',
  'get',
)

const segment = fc.oneof(
  fc.constantFrom(
    'users',
    'products',
    'orders',
    'sessions',
    'current',
    '__sandbox',
    'db',
    'requests',
    'config',
  ),
  fc.constantFrom('1', '2', '3', '999', '0', '-1', '01', '1.5', '1e3', 'abc', 'create', 'delete'),
  fc.constantFrom(
    '..',
    '.',
    '',
    '%2e%2e',
    '%00',
    '%2F',
    'ü',
    '😀',
    '%E0%A4%A',
    'x'.repeat(3000),
    '9'.repeat(40),
  ),
  fc.string({ maxLength: 12 }),
)

/** Paths: real routes, near misses, encodings, unicode, dot segments, double slashes, overlong. */
export const path = fc
  .tuple(fc.array(segment, { minLength: 0, maxLength: 5 }), fc.boolean())
  .map(([segments, trailing]) => `/${segments.join('/')}${trailing ? '/' : ''}`)

const queryKey = fc.oneof(
  fc.constantFrom(
    'page',
    'pageSize',
    'status',
    'sort',
    'order',
    'fields',
    'keyword',
    'userId',
    '__proto__',
    'constructor',
    'action',
  ),
  fc.string({ maxLength: 8 }),
)
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '1',
    '0',
    '-1',
    '20',
    '100',
    '101',
    'NaN',
    'Infinity',
    '1e309',
    '99999999999999999999',
    'asc',
    'desc',
  ),
  fc.constantFrom(
    'active',
    'pending',
    'id',
    'name',
    'createdAt',
    'id,name',
    'id,,name',
    'password',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 20 }),
)

/** Query strings: repeated, empty, huge, wrong types. */
export const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
  .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''))

export const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'Bearer sandbox-admin-token',
    'Bearer sandbox-member-token',
    'Bearer',
    'Bearer ',
    'bearer sandbox-admin-token',
    'Bearer sandbox-admin-token extra',
    'Basic YWRtaW46cGFzc3dvcmQ=',
    'Bearer sandbox-admin-tokeN',
    `Bearer ${'a'.repeat(5000)}`,
  ),
  fc.string({ maxLength: 30 }),
)

export const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/merge-patch+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'json',
  ),
)

/** Bodies that are valid-looking, broken, hostile or huge. */
export const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.constantFrom(
    '{"name":"prop-test","email":"prop@example.com"}',
    '{"name":"prop-test","email":"prop@example.com","role":"admin","status":"inactive"}',
    '{"name":"P","sku":"PROP-1","price":1.5,"stock":3}',
    '{"items":[{"productId":1,"quantity":1}]}',
    '{"userId":2,"items":[{"productId":2,"quantity":2},{"productId":1,"quantity":999}]}',
    '{"status":"cancelled"}',
    '{"status":"paid","items":[{"productId":3,"quantity":1}]}',
    '{"email":"admin@example.com","password":"password"}',
    '{"__proto__":{"polluted":"yes"},"name":"proto-user","email":"proto@example.com"}',
    '{"constructor":{"prototype":{"polluted":"yes"}},"name":"ctor","email":"ctor@example.com"}',
    '{"prototype":{"polluted":"yes"}}',
    '{"name":1e400,"price":-0,"stock":1e309}',
    '{"price":"NaN","stock":"Infinity","quantity":"1"}',
    '[{"name":"array-not-object"}]',
    '{"items":{"productId":1,"quantity":1}}',
    '"just a string"',
    'null',
    '',
    '{',
    '{"a":',
    '\u0000\u0001',
    `${'['.repeat(20000)}${']'.repeat(20000)}`,
    `{"name":"${'n'.repeat(2000)}","email":"e@example.com"}`,
    JSON.stringify({ users: [], products: [], orders: [] }),
  ),
)

export const prefer = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'return=representation',
    'code=404',
    'code=500',
    'code=999',
    'code=',
    'return=minimal, code=abc',
  ),
)

export const sandboxId = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('worker-1', 'worker-2', '', 'bad id', 'x'.repeat(65), '../etc', 'ü'),
)

/** A whole request. */
export const request = fc.record({
  method,
  path,
  query,
  authorization,
  contentType,
  body,
  prefer,
  sandboxId,
})
