import bytes from 'bytes'
import { MAX_DELAY_MS } from '../state/runtime-config.js'

/** Flag parsers for the CLI: each returns the value or throws a one-line message naming the flag. */

export function integerFlag(name: string, min: number, max: number) {
  return (raw: unknown): number => {
    const text = String(raw)
    const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`--${name} must be an integer from ${min} to ${max}, got '${text}'`)
    }
    return value
  }
}

export function rateFlag(name: string) {
  return (raw: unknown): number => {
    const text = String(raw)
    const value = /^(?:0|1|0?\.\d+|1\.0*)$/.test(text) ? Number(text) : Number.NaN
    if (!(value >= 0 && value <= 1))
      throw new Error(`--${name} must be a number from 0 to 1, got '${text}'`)
    return value
  }
}

export function delayFlag(raw: unknown): string {
  const text = String(raw)
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text)
  const [min, max] = [Number(match?.[1]), Number(match?.[2] ?? match?.[1])]
  if (!match || min > max || max > MAX_DELAY_MS) {
    throw new Error(
      `--delay must be <ms> or <min>-<max> with 0 <= min <= max <= ${MAX_DELAY_MS}, got '${text}'`,
    )
  }
  return text
}

export function basePathFlag(raw: unknown): string {
  const text = String(raw)
  if (text !== '' && !/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(text)) {
    throw new Error(`--base-path must look like /api or /api/v1, got '${text}'`)
  }
  return text.replace(/\/$/, '')
}

/** A size like `16384`, `16kb` or `4mb` (the `bytes` package's format), within bounds. */
export function bytesFlag(name: string, min: number, max: number) {
  return (raw: unknown): number => {
    const text = String(raw)
    const value = /^\d+(?:\.\d+)?\s*(?:b|kb|mb|gb)?$/i.test(text) ? bytes.parse(text) : null
    if (value === null || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(
        `--${name} must be a size from ${bytes.format(min)} to ${bytes.format(max)} (like 16kb or 4mb), got '${text}'`,
      )
    }
    return value
  }
}
