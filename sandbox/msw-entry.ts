/**
 * Where an msw of `version` exports its HTTP handlers alone: `msw/http` from msw 3 on,
 * `msw/core/http` in msw 2 (>= 2.15). Node's entry points load them from there
 * (sandbox/msw-node.ts); the bench's cold start compares with msw loading the same.
 */
export function mswHttpEntry(version: string): 'msw/http' | 'msw/core/http' {
  return Number.parseInt(version, 10) >= 3 ? 'msw/http' : 'msw/core/http'
}
