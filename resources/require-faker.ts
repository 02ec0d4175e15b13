import type { Faker, LocaleDefinition } from '@faker-js/faker'

/**
 * faker's base-locale module, required synchronously (Node ≥ 20.19 requires ES modules);
 * undefined where Node's `require` is not (a browser). The package index would evaluate every
 * locale (~100 ms); the base locale's module holds just the Faker class, through its instance.
 *
 * The CommonJS build replaces this module with a `require` of its bundled faker
 * (scripts/build-cjs.ts), so Jest loads faker inside the test's own module registry.
 */
export function requireFaker(): { faker: Faker } | undefined {
  const builtin = globalThis.process?.getBuiltinModule?.('node:module')
  return builtin?.createRequire(import.meta.url)('@faker-js/faker/locale/base') as
    { faker: Faker } | undefined
}

/**
 * faker's whole English locale (its definitions), required synchronously like
 * {@link requireFaker}: for seeders of resources that are not an API's own. The CommonJS build
 * requires a bundled copy instead.
 */
export function requireFakerEnglish(): LocaleDefinition | undefined {
  const builtin = globalThis.process?.getBuiltinModule?.('node:module')
  const module = builtin?.createRequire(import.meta.url)('@faker-js/faker/locale/en') as
    { faker: Faker } | undefined
  return module?.faker.rawDefinitions
}
