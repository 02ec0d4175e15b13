import { en } from '@faker-js/faker'
import type { LocaleDefinition } from '@faker-js/faker'

/** Which definitions of `en` the seeder's faker calls read: one list, used by the script and its test. */
export function fakerLocaleSubset(): LocaleDefinition {
  return {
    person: {
      first_name: en.person!.first_name!,
      last_name: en.person!.last_name!,
      last_name_pattern: en.person!.last_name_pattern!,
    },
    commerce: { product_name: en.commerce!.product_name! },
  }
}
