import { z } from 'zod'

const delayMs = z.int().min(0).max(60_000)

const delayRange = z
  .object({ min: delayMs, max: delayMs })
  .refine((range) => range.min <= range.max, { message: 'min must not exceed max', path: ['max'] })

/** `150` or `"100-300"` as written on the command line. */
const delayText = z
  .string()
  .regex(/^\d{1,5}(?:-\d{1,5})?$/, 'must be <ms> or <min>-<max>')
  .transform((text) => {
    const [min, max = min] = text.split('-').map(Number) as [number, number?]
    return min === max ? min : { min, max }
  })
  .pipe(z.union([delayMs, delayRange]))

/** A latency: a fixed number of milliseconds, or a uniform range `{ min, max }`. */
export const delaySchema = z.union([delayMs, delayRange, delayText]).meta({
  description: 'Milliseconds (0-60000), or a range { min, max } (also written "100-300").',
})

const rate = z.number().min(0).max(1)

/** The sandbox's runtime settings (CONTRACT C): `GET /__sandbox/config` returns them. */
export const runtimeConfigSchema = z
  .object({
    delay: delaySchema.default(0),
    errorRate: rate.default(0).meta({ description: 'Share of API requests answered 500 or 503.' }),
    dropRate: rate
      .default(0)
      .meta({ description: 'Share of API requests whose connection is dropped.' }),
    strict: z
      .boolean()
      .default(false)
      .meta({ description: 'Unknown query parameters and body fields are errors.' }),
    auth: z
      .boolean()
      .default(true)
      .meta({ description: 'When false, requests without a token act as the admin.' }),
  })
  .meta({ id: 'SandboxConfig' })

/** Body of `PATCH /__sandbox/config`: any of the settings. */
export const runtimeConfigPatchSchema = z
  .object({
    delay: delaySchema,
    errorRate: rate,
    dropRate: rate,
    strict: z.boolean(),
    auth: z.boolean(),
  })
  .partial()
  .meta({ id: 'SandboxConfigPatch' })

export type Delay = number | { min: number; max: number }

export interface RuntimeConfig {
  delay: Delay
  errorRate: number
  dropRate: number
  strict: boolean
  auth: boolean
}

export type RuntimeConfigInput = z.input<typeof runtimeConfigPatchSchema>

/** Draws a delay in milliseconds from a fixed value or range. */
export function drawDelay(delay: Delay, random: () => number): number {
  if (typeof delay === 'number') return delay
  return delay.min + Math.floor(random() * (delay.max - delay.min + 1))
}
