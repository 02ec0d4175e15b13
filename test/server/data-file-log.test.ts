import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { WriteLog } from '../../server/data-file/log.js'

const folders: string[] = []
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

describe('the write-ahead log and its reserve', () => {
  // The start refuses links there (e2e/data-file.test.ts); one planted later, while the server
  // runs, meets these opens.
  it('never write through a symbolic link planted at their paths', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-log-'))
    folders.push(folder)
    const victim = join(folder, 'victim.txt')
    await writeFile(victim, 'precious')
    const absent = join(folder, 'absent.txt')
    const logPath = join(folder, '.data.json.log')
    const reservePath = join(folder, '.data.json.reserve')
    await symlink(victim, reservePath)
    await symlink(absent, logPath)
    const log = new WriteLog(
      logPath,
      reservePath,
      () => 0o644,
      async () => undefined,
    )
    await expect(log.open()).rejects.toThrow(/ELOOP/)
    // The reserve is made anew: the planted link replaced by a file of its own.
    await log.makeReserve()
    expect(await readFile(victim, 'utf8')).toBe('precious')
    await expect(stat(absent)).rejects.toThrow(/ENOENT/)
    expect((await lstat(reservePath)).isFile()).toBe(true)
    expect((await stat(reservePath)).size).toBe(32 * 1024)
    // A link to a file that exists, at the log: refused as well, the file unchanged.
    await rm(logPath)
    await symlink(victim, logPath)
    await expect(log.open()).rejects.toThrow(/ELOOP/)
    expect(() => log.emptySync()).toThrow(/ELOOP/)
    expect(await readFile(victim, 'utf8')).toBe('precious')
  })
})
