/**
 * The licences of the packages the build copies into `dist/` (bundled, not loaded from
 * node_modules): zod and fastest-levenshtein in the ESM chunks, faker in the CommonJS copy.
 * Which packages those are is read from each esbuild run's metafile, so the list follows the
 * build; `dist/THIRD-PARTY-NOTICES.md` gathers their licence texts, as their MIT licences ask.
 */
import type { Metafile } from 'esbuild'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const NOTICES = join('dist', 'THIRD-PARTY-NOTICES.md')
const HEADING = /^## (\S+) /gm

/** The package folders (`node_modules/zod`, `node_modules/@faker-js/faker`) an esbuild run bundled. */
function bundledPackages(metafile: Metafile): Set<string> {
  const folders = new Set<string>()
  for (const input of Object.keys(metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (match) folders.add(match[1]!)
  }
  return folders
}

/** Adds the licence of each package `metafile` shows bundled to the notices, once per package. */
export function recordBundled(metafile: Metafile): void {
  const text = existsSync(NOTICES)
    ? readFileSync(NOTICES, 'utf8')
    : '# Third-party notices\n\nshop-sandbox carries parts of these packages in `dist/`.\n'
  const listed = new Set([...text.matchAll(HEADING)].map((match) => match[1]))
  let added = ''
  for (const name of [...bundledPackages(metafile)].sort()) {
    if (listed.has(name)) continue
    const folder = join('node_modules', name)
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      version: string
      license?: string
    }
    const licence = readdirSync(folder).find((file) => /^licen[cs]e(\.\w+)?$/i.test(file))
    if (!licence) throw new Error(`${name} has no licence file to carry into dist/`)
    added += `\n## ${name} ${manifest.version} (${manifest.license ?? 'see below'})\n\n\`\`\`text\n${readFileSync(join(folder, licence), 'utf8').trim()}\n\`\`\`\n`
  }
  if (added) writeFileSync(NOTICES, text + added)
}
