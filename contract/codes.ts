/**
 * The business codes of CONTRACT B5: the only place a code, its HTTP status and its default
 * message are written. Everything else refers to them by name.
 */
export const codes = {
  success: { code: 0, status: 200, message: 'success' },
  invalidParameter: { code: 40000, status: 400, message: 'invalid request parameter' },
  usernameTaken: { code: 40001, status: 409, message: 'Username already taken' },
  emailTaken: { code: 40002, status: 409, message: 'Email already registered' },
  skuTaken: { code: 40003, status: 409, message: 'SKU already exists' },
  malformedJson: { code: 40004, status: 400, message: 'malformed JSON body' },
  authenticationRequired: { code: 40100, status: 401, message: 'authentication required' },
  invalidToken: { code: 40101, status: 401, message: 'invalid or expired token' },
  wrongCredentials: { code: 40102, status: 401, message: 'wrong email or password' },
  permissionDenied: { code: 40300, status: 403, message: 'permission denied' },
  notFound: { code: 40400, status: 404, message: 'resource not found' },
  methodNotAllowed: { code: 40500, status: 405, message: 'method not allowed' },
  insufficientStock: { code: 40901, status: 409, message: 'insufficient stock' },
  invalidStatusChange: {
    code: 40902,
    status: 409,
    message: 'order status does not allow this change',
  },
  payloadTooLarge: { code: 41300, status: 413, message: 'body larger than 1 MiB' },
  unsupportedMediaType: { code: 41500, status: 415, message: 'body is not application/json' },
  validationFailed: { code: 42200, status: 422, message: 'validation failed' },
  rateLimited: { code: 42900, status: 429, message: 'rate limit exceeded' },
  internalError: { code: 50000, status: 500, message: 'internal server error' },
  serviceUnavailable: { code: 50300, status: 503, message: 'service unavailable' },
} as const satisfies Record<string, { code: number; status: number; message: string }>

export type CodeName = keyof typeof codes

/** A code of the catalogue by name, or a resource's own (e.g. a conflict: status 409 unless given). */
export type CodeSpec = CodeName | { code: number; message: string; status?: number }

/** The code, status and default message a {@link CodeSpec} stands for, and a key naming it. */
export function codeEntry(spec: CodeSpec): {
  key: string
  code: number
  status: number
  message: string
} {
  return typeof spec === 'string'
    ? { key: spec, ...codes[spec] }
    : { key: String(spec.code), status: 409, ...spec }
}

/** A business code number of CONTRACT B5, e.g. `40001`. */
export type BusinessCode = (typeof codes)[CodeName]['code']

/**
 * The business codes by name, as a typed constant for clients.
 *
 * @example
 * if (body.code === ErrorCode.usernameTaken) showError('pick another name')
 */
export const ErrorCode = Object.fromEntries(
  Object.entries(codes).map(([name, entry]) => [name, entry.code]),
) as { readonly [K in CodeName]: (typeof codes)[K]['code'] }

/** The code an HTTP status means when nothing more specific is known (Prefer: code=…). */
export const codeForStatus: Readonly<Record<number, CodeName>> = {
  400: 'invalidParameter',
  401: 'invalidToken',
  403: 'permissionDenied',
  404: 'notFound',
  405: 'methodNotAllowed',
  409: 'usernameTaken',
  413: 'payloadTooLarge',
  415: 'unsupportedMediaType',
  422: 'validationFailed',
  429: 'rateLimited',
  500: 'internalError',
  503: 'serviceUnavailable',
}
