import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'

const readmePath = resolve(import.meta.dirname, '..', 'README.md')

/**
 * Rewrites the README's block between `<!-- name:start … -->` and `<!-- name:end -->` with
 * `lines` (the markers included), formatted as `npm run lint` expects.
 */
export async function rewriteReadmeBlock(name: string, lines: string[]): Promise<void> {
  const readme = readFileSync(readmePath, 'utf8')
  const pattern = new RegExp(`<!-- ${name}:start[\\s\\S]*?<!-- ${name}:end -->`)
  if (!pattern.test(readme)) throw new Error(`README.md has no ${name} block`)
  const updated = readme.replace(pattern, () => lines.join('\n'))
  // The repository's settings (.prettierrc.json), or the code blocks come out in prettier's defaults.
  const config = await resolveConfig(readmePath)
  writeFileSync(readmePath, await format(updated, { ...config, filepath: readmePath }))
}
