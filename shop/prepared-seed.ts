import type { PreparedSeed } from '../resources/seed.js'

/**
 * The shop's default data set for the browser, where the sandbox cannot read the JSON file the
 * build writes for Node: `npm run build` (scripts/build-esm.ts) replaces this module's output
 * with the data, which `startSandbox` imports on demand (a chunk of its own) so a page with the
 * defaults never loads faker. From source (tests, a Vite alias), none: faker generates it.
 */
const prepared: PreparedSeed | undefined = undefined
export default prepared
