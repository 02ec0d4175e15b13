import * as z from 'zod'
import { schemaRegistry } from '../contract/registry.js'

/** A money amount in whole cents, the unit every total is computed in. */
export function toCents(amount: number): number {
  return Math.round(amount * 100)
}

/** Σ quantity × unitPrice, computed in whole cents so it never drifts (3 × 19.99 = 59.97). */
export function orderTotal(
  items: ReadonlyArray<{ readonly quantity: number; readonly unitPrice: number }>,
): number {
  let cents = 0
  for (const item of items) cents += item.quantity * toCents(item.unitPrice)
  return cents / 100
}

/**
 * Whether an amount has at most two decimals, tolerating the noise of float arithmetic
 * (0.1 + 0.2 = 0.30000000000000004, 3 × 19.99 = 59.97000000000001): a few units of the last
 * place, relative to the amount. A decimal that was written (1.00000001) is not noise.
 */
function wholeCents(amount: number): boolean {
  const cents = amount * 100
  return Math.abs(toCents(amount) - cents) <= 1e-12 * Math.max(1, Math.abs(cents))
}

/**
 * A price in the shop's currency: 0 to 1,000,000 with at most two decimals, kept in whole
 * cents whatever float noise the client sent (0.1 + 0.2 is stored as 0.3). The decimals rule
 * is a refinement, not JSON Schema's `multipleOf: 0.01`: common validators (Ajv) compute
 * 19.99 / 0.01 in floating point and would reject valid prices.
 */
export const priceSchema = z
  .number()
  .min(0)
  .max(1_000_000)
  .refine(wholeCents, 'must have at most 2 decimals')
  .overwrite((amount) => toCents(amount) / 100)
  .register(schemaRegistry, { description: 'At most 2 decimals.' })
