import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'

/** The pages whose measured blocks the bench, the attacks and `npm run measure` rewrite. */
export const docPages = {
  performance: resolve(import.meta.dirname, '..', 'docs', 'performance.md'),
  security: resolve(import.meta.dirname, '..', 'docs', 'security.md'),
  javascript: resolve(import.meta.dirname, '..', 'docs', 'reference', 'javascript.md'),
} as const

/**
 * Rewrites a page's block between `<!-- name:start … -->` and `<!-- name:end -->` with `lines`
 * (the markers included), formatted as `npm run lint` expects.
 */
export async function rewriteDocBlock(page: string, name: string, lines: string[]): Promise<void> {
  const text = readFileSync(page, 'utf8')
  const pattern = new RegExp(`<!-- ${name}:start[\\s\\S]*?<!-- ${name}:end -->`)
  if (!pattern.test(text)) throw new Error(`${page} has no ${name} block`)
  const updated = text.replace(pattern, () => lines.join('\n'))
  // The repository's settings (.prettierrc.json), or the code blocks come out in prettier's defaults.
  const config = await resolveConfig(page)
  writeFileSync(page, await format(updated, { ...config, filepath: page }))
}
