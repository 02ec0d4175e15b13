/**
 * Where an msw of `version` exports its HTTP handlers alone: `msw/http` from msw 3 on,
 * `msw/core/http` in msw 2 (>= 2.15). Node's entry points load them from there
 * (sandbox/msw-node.ts); the bench's cold start compares with msw loading the same.
 */
export function mswHttpEntry(version: string): 'msw/http' | 'msw/core/http' {
  return Number.parseInt(version, 10) >= 3 ? 'msw/http' : 'msw/core/http'
}

/**
 * Why an msw of `version` cannot intercept requests in Node `node`, or null: msw 3 needs Node
 * 22.12 (npm only warns, EBADENGINE, when it installs), and on an older Node every request then
 * fails with `fetch failed … Promise.withResolvers is not a function`, not a word on why.
 */
export function mswNodeProblem(version: string, node: string): string | null {
  const [major = 0, minor = 0] = node.split('.').map(Number)
  if (Number.parseInt(version, 10) < 3 || major > 22 || (major === 22 && minor >= 12)) return null
  return `msw ${version} needs Node 22.12 or later, and this is Node ${node}: its requests will fail (Promise.withResolvers is not a function); install msw 2 (npm install --save-dev msw@2) or use a newer Node`
}
