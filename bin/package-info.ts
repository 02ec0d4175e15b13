import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package's root folder and version, found from this file (in `bin/` or `dist/bin/`). */
export function packageInfo(): { root: string; version: string } {
  let folder = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 4; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        name?: string
        version?: string
      }
      if (manifest.name === 'shop-sandbox')
        return { root: folder, version: manifest.version ?? '0.0.0' }
    } catch {
      // not here: look one folder up
    }
    folder = dirname(folder)
  }
  throw new Error('shop-sandbox: cannot find its package.json')
}
