import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'

/**
 * Finds MSW's worker script: the app's own msw first (so the worker matches the msw the app
 * bundles), else the one next to shop-sandbox.
 */
export function findWorkerScript(cwd = process.cwd()): string {
  for (const base of [join(cwd, 'package.json'), import.meta.url]) {
    try {
      return createRequire(base).resolve('msw/mockServiceWorker.js')
    } catch {
      // not resolvable from here: try the next place
    }
  }
  throw new Error('cannot find msw/mockServiceWorker.js: install msw (npm install --save-dev msw)')
}

/** `shop-sandbox init <publicDir>`: copies MSW's worker script where the app serves static files. */
export async function init(publicDir: string): Promise<void> {
  try {
    const source = findWorkerScript()
    const target = join(resolve(publicDir), 'mockServiceWorker.js')
    await mkdir(resolve(publicDir), { recursive: true })
    await copyFile(source, target)
    const version =
      /PACKAGE_VERSION = '([^']+)'/.exec(await readFile(source, 'utf8'))?.[1] ?? 'unknown'
    console.log(`shop-sandbox: wrote ${target} (msw ${version})`)
  } catch (error) {
    console.error(`shop-sandbox: ${(error as Error).message}`)
    process.exitCode = 1
  }
}
