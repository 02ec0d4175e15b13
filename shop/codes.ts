import type { CodeDefinition } from '../contract/codes.js'

/**
 * The Shop API's own business codes (CONTRACT B5): the only place each is written. The
 * generic ones (400, 401, 404…) are every API's, in `contract/codes.ts`.
 */
export const shopCodes = {
  usernameTaken: { code: 40001, status: 409, message: 'Username already taken' },
  emailTaken: { code: 40002, status: 409, message: 'Email already registered' },
  skuTaken: { code: 40003, status: 409, message: 'SKU already exists' },
  insufficientStock: { code: 40901, status: 409, message: 'insufficient stock' },
  invalidStatusChange: {
    code: 40902,
    status: 409,
    message: 'order status does not allow this change',
  },
} as const satisfies Record<string, CodeDefinition>
