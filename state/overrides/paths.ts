/** Runs of characters the URL parser percent-encodes in a path (WHATWG URL's path set, braces aside). */
const PATH_ENCODED = /[\u0000-\u0020"#<>?`\u007f-\uffff]+/g

/** A lone surrogate (half of a pair): the URL parser reads it as U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * A path segment as the router sees it in a request's URL: characters the URL parser would
 * encode are encoded (`café` as `caf%C3%A9`), escapes in upper case (`%7e` is `%7E`); nothing
 * is decoded, as the router decodes nothing (`/users/%33` is no user id).
 */
function canonicalSegment(segment: string): string {
  return segment
    .replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase())
    .replace(PATH_ENCODED, (run) => encodeURIComponent(run.replace(LONE_SURROGATE, '\ufffd')))
}

/**
 * The segments of a path as the router sees them, a trailing slash dropped; null for a path no
 * route can match (an empty segment, `//x`).
 */
export function pathSegments(path: string): string[] | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  if (trimmed === '/' || trimmed === '') return []
  const segments: string[] = []
  for (const part of trimmed.split('/').slice(1)) {
    if (part === '') return null
    segments.push(/^\{\w+\}$/.test(part) ? part : canonicalSegment(part))
  }
  return segments
}

/** A path's segments as matched: a literal, or null for a `{name}` that matches any one. */
export type SegmentPattern = ReadonlyArray<string | null>

/** The {@link SegmentPattern} of a path template or concrete path (split once, when stored). */
export function segmentPattern(path: string): SegmentPattern {
  return (pathSegments(path) ?? []).map((part) => (/^\{\w+\}$/.test(part) ? null : part))
}

/**
 * A path template or concrete path as a matcher of a request path's segments (as
 * {@link pathSegments} splits them): `{name}` matches any one segment, a trailing slash and
 * percent-encoding are ignored.
 */
export function segmentMatcher(
  path: string,
  pattern: SegmentPattern = segmentPattern(path),
): (segments: readonly string[] | null) => boolean {
  return (segments) => {
    if (segments === null || segments.length !== pattern.length) return false
    for (let index = 0; index < pattern.length; index++) {
      const literal = pattern[index]
      if (literal !== null && literal !== segments[index]) return false
    }
    return true
  }
}

/**
 * How close a request path's segments come to an override's path (near misses, CONTRACT C2):
 * a point for each segment in the same place that it matches (`{name}` matches any), one less
 * for each segment more or fewer, and a fraction for the shared start of the first segment that
 * differs (`avatr` is nearer `avatar` than `banner`). Linear in the request's segments; the
 * override's are split once, when it is stored (split on every near miss, 1,000 overrides of
 * 600 segments held the loop ~450 ms a request).
 */
export function pathCloseness(
  template: SegmentPattern,
  segments: readonly string[] | null,
): number {
  if (segments === null) return -template.length
  let score = -Math.abs(template.length - segments.length)
  let partial = 0
  for (let index = 0; index < Math.min(template.length, segments.length); index++) {
    const wanted = template[index]!
    const given = segments[index]!
    if (wanted === null || wanted === given) score++
    else if (partial === 0) {
      // The first characters tell a typo from another word: at most 64 are compared.
      const most = Math.min(64, wanted.length, given.length)
      let shared = 0
      while (shared < most && wanted[shared] === given[shared]) shared++
      partial = shared / (Math.min(64, Math.max(wanted.length, given.length)) + 1)
    }
  }
  return score + partial
}

/** {@link segmentMatcher} for one path at a time (the journal's filter). */
export function pathMatcher(path: string): (candidate: string) => boolean {
  const matches = segmentMatcher(path)
  return (candidate) => matches(pathSegments(candidate))
}
