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
