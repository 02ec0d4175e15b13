/**
 * CONTRACT C2's overrides: what one is (schemas.ts: the input a caller gives, validated), how a
 * request is matched against them (paths.ts, matching.ts: conditions and near misses), where a
 * sandbox keeps them (store.ts, within its bounds) and what one answers (answer.ts).
 */
export { overrideAnswer } from './answer.js'
export type { MatchRequest, NearMiss } from './matching.js'
export { containsAt, NEEDS_BODY, NO_JSON } from './matching.js'
export { pathMatcher, pathSegments, segmentMatcher } from './paths.js'
export type {
  Override,
  OverrideInput,
  OverrideMethod,
  OverrideResponse,
  ParsedOverride,
} from './schemas.js'
export {
  MAX_CONDITIONS,
  MAX_DEPTH,
  MAX_HEADER_BYTES,
  MAX_PATH,
  MAX_SEQUENCE,
  methodSchema,
  overrideInputSchema,
  overrideMethods,
  overrideSchema,
  parseOverride,
} from './schemas.js'
export { OverrideBoundError, overrideFootprint, Overrides, overridesListTooLong } from './store.js'
