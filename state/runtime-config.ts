import * as z from 'zod'
import { definedOnly } from '../db/defined-only.js'
import { documented } from '../contract/registry.js'
import { once } from '../contract/once.js'

/** The longest delay anything may ask for: settings, `X-Sandbox-Delay`, overrides. */
export const MAX_DELAY_MS = 60_000

/** A latency: milliseconds, or a uniform range. */
export type Delay = number | { min: number; max: number }

/** The settings' schemas, built on first use (a sandbox nobody configures never builds them). */
const schemas = once(() => {
  const delayMs = z.int().min(0).max(MAX_DELAY_MS)
  const delayRange = z
    .strictObject({ min: delayMs, max: delayMs })
    .refine((range) => range.min <= range.max, {
      message: 'min must not exceed max',
      path: ['max'],
    })
  // `150` or `"100-300"` as written on the command line.
  const delayText = z
    .string()
    .regex(/^\d{1,5}(?:-\d{1,5})?$/, 'must be <ms> or <min>-<max>')
    .transform((text) => {
      const [min, max = min] = text.split('-').map(Number) as [number, number?]
      return min === max ? min : { min, max }
    })
    .pipe(z.union([delayMs, delayRange]))
  const delayValue = z.union([delayMs, delayRange])
  const rate = z.number().min(0).max(1)
  const settings = {
    errorRate: documented(rate, {
      description: 'Share of API requests answered 500 or 503 (0 to 1).',
    }),
    dropRate: documented(rate, {
      description: 'Share of API requests whose connection is dropped (0 to 1).',
    }),
    strict: documented(z.boolean(), {
      description: 'Unknown query parameters and body fields are errors.',
    }),
    auth: documented(z.boolean(), {
      description: 'When false, requests without a token act as the admin.',
    }),
  }
  return {
    /** What `GET /__sandbox/config` returns (CONTRACT C). */
    config: documented(
      z.object({
        delay: documented(delayValue, {
          description: 'Milliseconds, or a uniform range { min, max }.',
        }) as z.ZodType<Delay>,
        ...settings,
      }),
      { id: 'SandboxConfig' },
    ),
    /** Body of `PATCH /__sandbox/config`: any of the settings; a delay also as `"100-300"`. */
    patch: documented(
      z
        .object({
          delay: documented(z.union([delayMs, delayRange, delayText]), {
            description: `Milliseconds (0-${MAX_DELAY_MS}), or a range { min, max } (also written "100-300").`,
          }) as z.ZodType<Delay, Delay | string>,
          ...settings,
        })
        .partial(),
      { id: 'SandboxConfigPatch' },
    ),
  }
})

/** The sandbox's runtime settings (CONTRACT C): what `GET /__sandbox/config` returns. */
export const runtimeConfigSchema = () => schemas().config

/** Body of `PATCH /__sandbox/config`: any of the settings. */
export const runtimeConfigPatchSchema = () => schemas().patch

export type RuntimeConfig = z.output<ReturnType<typeof runtimeConfigSchema>>

/** The settings of a sandbox nobody configured. */
export const defaultRuntimeConfig: Readonly<RuntimeConfig> = Object.freeze({
  delay: 0,
  errorRate: 0,
  dropRate: 0,
  strict: false,
  auth: true,
})

export type RuntimeConfigInput = z.input<ReturnType<typeof runtimeConfigPatchSchema>>

/** `config` with the given settings changed (a setting given as `undefined` is left alone). */
export function withSettings(
  config: Readonly<RuntimeConfig>,
  changes: { [K in keyof RuntimeConfig]?: RuntimeConfig[K] | undefined },
): RuntimeConfig {
  return { ...config, ...(definedOnly(changes) as Partial<RuntimeConfig>) }
}

/** Draws a delay in milliseconds from a fixed value or range. */
export function drawDelay(delay: Delay, random: () => number): number {
  if (typeof delay === 'number') return delay
  return delay.min + Math.floor(random() * (delay.max - delay.min + 1))
}
