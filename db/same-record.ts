/**
 * Whether an update would change nothing: the same value in every field of `next`. The rule
 * for every resource: `updatedAt` moves only when a stored field really changes (an update
 * that changes nothing answers the record as it was).
 */
export function changesNothing<T extends object>(current: T, next: Partial<T>): boolean {
  return (Object.keys(next) as Array<keyof T>).every((key) => Object.is(current[key], next[key]))
}
