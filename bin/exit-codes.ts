import { OptionsError } from '../contract/option-spec.js'
import { SeedTooLarge } from '../resources/seed.js'

/** Exit code for a bad command line. */
export const USAGE_ERROR = 2

/**
 * The exit code of a start that failed: 2 for an option refused by its value (`--scenario
 * emtpy`, `--base-path /__sandbox`), as for a flag the command line itself refuses; 1 for the
 * rest (a taken port, a data file, a data set the heap has no room for on this machine).
 */
export function startupExitCode(error: unknown): number {
  return error instanceof OptionsError && !(error instanceof SeedTooLarge) ? USAGE_ERROR : 1
}
