import { randomBytes } from 'node:crypto'
import { lstat, open, readlink, realpath, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/**
 * A fresh temp file's path beside `file` (`.<name>.<random>.tmp`): a name no one can guess, so
 * nothing can be planted there (a symlink to a file this process may write), and opened with
 * `wx`, so nothing already there is ever written through.
 */
export function tempPathBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`)
}

/** Writes a file whole or not at all: a new temp file beside it, fsynced, renamed over it. */
export async function writeAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const temp = tempPathBeside(file)
  const handle = await open(temp, 'wx', mode)
  try {
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined)
    throw error
  }
  await syncFolder(dirname(file))
}

/** fsync of the folder, so the rename itself survives a power cut. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r').catch(() => null)
  if (!handle) return
  try {
    await handle.sync()
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  } finally {
    await handle.close()
  }
}

/**
 * The real file behind a chain of symlinks, also when it does not exist yet (a link to a file
 * to be made): what is written there keeps the links. Throws what reading the path throws,
 * other than its not existing.
 */
export async function realTarget(path: string): Promise<string> {
  let current = resolve(path)
  for (let hops = 0; hops < 40; hops++) {
    try {
      return await realpath(current)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    // A missing file, or a link to one: follow the link by hand, then the folder is real.
    try {
      if (!(await lstat(current)).isSymbolicLink()) break
      current = resolve(dirname(current), await readlink(current))
    } catch {
      break
    }
  }
  try {
    return join(await realpath(dirname(current)), basename(current))
  } catch {
    return current
  }
}
