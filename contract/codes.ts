/**
 * The business codes every API served by the engine shares (CONTRACT B5's generic ones): the
 * only place such a code, its HTTP status and its default message are written. An API adds its
 * own (the shop's `usernameTaken`, `insufficientStock`…) in its definition (`defineApi`).
 */
export const codes = {
  success: { code: 0, status: 200, message: 'success' },
  invalidParameter: { code: 40000, status: 400, message: 'invalid request parameter' },
  malformedJson: { code: 40004, status: 400, message: 'malformed JSON body' },
  authenticationRequired: { code: 40100, status: 401, message: 'authentication required' },
  invalidToken: { code: 40101, status: 401, message: 'invalid or expired token' },
  wrongCredentials: { code: 40102, status: 401, message: 'wrong login or password' },
  permissionDenied: { code: 40300, status: 403, message: 'permission denied' },
  notFound: { code: 40400, status: 404, message: 'resource not found' },
  methodNotAllowed: { code: 40500, status: 405, message: 'method not allowed' },
  /**
   * A conflict without one of the API's own codes: what `Prefer: code=409` answers in an API
   * that declares no 409 code at all (the sandbox's own code; CONTRACT B5 lists the API's).
   */
  conflict: { code: 40900, status: 409, message: 'conflict' },
  payloadTooLarge: { code: 41300, status: 413, message: 'body larger than 1 MiB' },
  unsupportedMediaType: { code: 41500, status: 415, message: 'body is not application/json' },
  validationFailed: { code: 42200, status: 422, message: 'validation failed' },
  rateLimited: { code: 42900, status: 429, message: 'rate limit exceeded' },
  internalError: { code: 50000, status: 500, message: 'internal server error' },
  /** The proxy target (CONTRACT C4, `--proxy`) could not be reached or answered wrongly. */
  badGateway: { code: 50200, status: 502, message: 'bad gateway' },
  serviceUnavailable: { code: 50300, status: 503, message: 'service unavailable' },
  /** The proxy target did not answer within `--proxy-timeout`. */
  gatewayTimeout: { code: 50400, status: 504, message: 'gateway timeout' },
} as const satisfies Record<string, CodeDefinition>

/** One business code: its number, its HTTP status and its default message (clients must not parse it). */
export interface CodeDefinition {
  code: number
  status: number
  message: string
}

/** A generic code by name. */
export type GenericCodeName = keyof typeof codes

/**
 * A business code an API's definition refers to: a generic one by name, or a code object (its
 * own, e.g. `shopCodes.usernameTaken`, or written in place; status 409 unless given). At run
 * time, a name may also be one of the API's own codes (resolved when the sandbox is made).
 */
export type CodeSpec = GenericCodeName | { code: number; message: string; status?: number }

/** The code, status and default message a {@link CodeSpec} stands for, and a key naming it. */
export function codeEntry(spec: CodeSpec | CodeDefinition): {
  key: string
  code: number
  status: number
  message: string
} {
  return typeof spec === 'string'
    ? { key: spec, ...codes[spec] }
    : { key: String(spec.code), status: 409, ...spec }
}

/**
 * The business codes of a table by name, as a typed constant for clients.
 *
 * @example
 * if (body.code === ErrorCode.usernameTaken) showError('pick another name')
 */
export function codeNumbers<T extends Record<string, CodeDefinition>>(
  table: T,
): { readonly [K in keyof T]: T[K]['code'] } {
  return Object.fromEntries(Object.entries(table).map(([name, entry]) => [name, entry.code])) as {
    readonly [K in keyof T]: T[K]['code']
  }
}

/** The generic code an HTTP status means when nothing more specific is known (Prefer: code=…). */
export const codeForStatus: Readonly<Record<number, GenericCodeName>> = {
  400: 'invalidParameter',
  401: 'invalidToken',
  403: 'permissionDenied',
  404: 'notFound',
  405: 'methodNotAllowed',
  409: 'conflict',
  413: 'payloadTooLarge',
  415: 'unsupportedMediaType',
  422: 'validationFailed',
  429: 'rateLimited',
  500: 'internalError',
  502: 'badGateway',
  503: 'serviceUnavailable',
  504: 'gatewayTimeout',
}

/**
 * The code a status answers with when none is given (`Prefer: code=<status>`, an override's
 * answer): a 409 the `conflict` given (the route's resource's own, users: 40001, else the API's
 * first, `Catalog.conflict`) when there is one, else the generic code of the status; undefined
 * for a status that has none.
 */
export function codeOfStatus(
  status: number,
  conflict?: CodeDefinition,
): CodeDefinition | undefined {
  if (status === 409 && conflict) return conflict
  const name = codeForStatus[status]
  return name === undefined ? undefined : codes[name]
}
