import { z } from 'zod'

/** A record id: a positive safe integer, assigned by the sandbox (CONTRACT B1). */
export const idSchema = z.int().min(1)

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-03-04T05:06:07.000Z`. */
export const timestampSchema = z.iso.datetime({ precision: 3 })

/** `active` or `inactive`: the status of users and products. */
export const activitySchema = z.enum(['active', 'inactive'])

/** A price in the shop's currency: 0 to 1,000,000 with at most two decimals. */
export const priceSchema = z.number().min(0).max(1_000_000).multipleOf(0.01)

/** The fields every record has and no client can write. */
export const readOnlyFields = ['id', 'createdAt', 'updatedAt'] as const

/** Marks the read-only fields in the generated JSON Schema (and so in OpenAPI). */
export const readOnly = { readOnly: true } as const
