import type { Faker, LocaleDefinition } from '@faker-js/faker'
import { requireFaker, requireFakerEnglish } from './require-faker.js'

/**
 * Where the seeder's two inputs come from, loaded only when a data set is generated: faker's
 * class, and data sets prepared at build time. Loading faker costs a fresh test file ~10–20 ms
 * (issue 18); a sandbox with the default seed and counts never needs it in Node, since the build
 * writes that data set as JSON beside this module and {@link readPrepared} reads it.
 *
 * - In Node (ESM and CommonJS), faker is required synchronously when first needed
 *   (./require-faker.ts), so `createSandbox` stays synchronous.
 * - In a browser there is no `require`: the browser entry gives faker with {@link provideFaker}.
 */
let FakerClass: typeof Faker | undefined

/** faker's base locale (what every locale falls back to), from the same instance. */
let base: LocaleDefinition | undefined

/** Gives the seeder faker's class from an instance (the browser entry imports faker itself). */
export function provideFaker(faker: Faker): void {
  FakerClass ??= faker.constructor as typeof Faker
  base ??= faker.rawDefinitions
}

/** faker's base locale definitions (loaded with its class). */
export function fakerBase(): LocaleDefinition {
  fakerClass()
  return base!
}

/** faker's class: given, or required on first use. */
export function fakerClass(): typeof Faker {
  if (!FakerClass) {
    const module = requireFaker()
    if (!module)
      throw new Error(
        "shop-sandbox: faker is not loaded; in a browser import from 'shop-sandbox/browser'",
      )
    provideFaker(module.faker)
  }
  return FakerClass!
}

/** Loads faker's class where it cannot be required (a browser): a chunk of its own. */
export async function loadFaker(): Promise<void> {
  if (FakerClass) return
  provideFaker(requireFaker()?.faker ?? (await import('@faker-js/faker/locale/base')).faker)
}

let english: LocaleDefinition | undefined

/**
 * Loads what generating a catalog's data needs (faker, and its whole English locale when the
 * catalog names no locale of its own), or null when it is there already (always in Node).
 */
export function seedSourcesFor(catalog: { fakerLocale: unknown }): Promise<void> | null {
  const needsEnglish = !catalog.fakerLocale
  if (FakerClass && (!needsEnglish || english)) return null
  if (requireFaker() && (!needsEnglish || requireFakerEnglish())) return null
  return (async () => {
    await loadFaker()
    if (needsEnglish) await loadFakerEnglish()
  })()
}

/** Loads faker's English locale where it cannot be required (a browser): a chunk of its own. */
export async function loadFakerEnglish(): Promise<void> {
  english ??=
    requireFakerEnglish() ?? (await import('@faker-js/faker/locale/en')).faker.rawDefinitions
}

/** faker's whole English locale: given, or required on first use. */
export function fakerEnglish(): LocaleDefinition {
  english ??= requireFakerEnglish()
  if (!english)
    throw new Error(
      "shop-sandbox: faker's English locale is not loaded; in a browser start the sandbox with startSandbox()",
    )
  return english
}

/** Prepared data sets given by name where no file can be read (the browser entry). */
const provided = new Map<string, unknown>()

/** Gives a prepared data set by its file name, for where the file cannot be read (a browser). */
export function providePrepared(file: string, value: unknown): void {
  provided.set(file, value)
}

/** A JSON file the build wrote beside this module, parsed; undefined when there is none. */
export function readPrepared(file: string): unknown {
  if (provided.has(file)) return provided.get(file)
  const fs = globalThis.process?.getBuiltinModule?.('node:fs')
  if (!fs) return undefined
  let text: string
  try {
    text = fs.readFileSync(new URL(file, import.meta.url), 'utf8')
  } catch {
    return undefined
  }
  return JSON.parse(text)
}
