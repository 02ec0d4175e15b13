import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { execFile } from 'node:child_process'
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'

const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const fixture = fileURLToPath(new URL('../fixtures/full-disk.mjs', import.meta.url))
const run = promisify(execFile)
/** The URL a `shop-sandbox` child prints once it listens. */
const urlOf = (child: ReturnType<typeof spawn>) =>
  new Promise<string>((resolve) => {
    let out = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (match) resolve(match[1]!)
    })
  })
const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
const folders: string[] = []
const servers: SandboxServer[] = []
async function tempDir() {
  const folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-file-'))
  folders.push(folder)
  return folder
}
async function start(data: string) {
  const server = await createSandboxServer({ port: 0, data })
  servers.push(server)
  return server
}
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close().catch(() => undefined)
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})
const create = (server: SandboxServer, name: string) =>
  fetch(`${server.url}/users`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name, email: `${name}@example.com` }),
  })
const waitFor = async (check: () => Promise<boolean>, ms = 5000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('timed out')
}

/** An empty file made at `path`, whose path it returns. */
async function touch(path: string): Promise<string> {
  await writeFile(path, '')
  return path
}

/** What the server prints (`console.error`), caught for a test; `restore` lets it print again. */
function printedLines(): { lines: string[]; restore: () => void } {
  const lines: string[] = []
  const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => {
    lines.push(line)
  })
  return { lines, restore: () => spy.mockRestore() }
}
describe('the data file (CONTRACT C3, issue 15)', () => {
  it('one server per file: a second one refuses in one line naming the first one’s pid', async () => {
    const file = join(await tempDir(), 'data.json')
    await start(file)
    await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(
      `in use by another shop-sandbox (pid ${process.pid})`,
    )
  })

  it('a lock left by a crashed (kill -9) server does not block the next start, and its temp files are removed', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const child = spawn(process.execPath, [bin, '--port', '0', '--quiet', '--data', file])
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()))
    child.kill('SIGKILL')
    await once(child, 'exit')
    await writeFile(join(folder, '.data.json.deadbeef.tmp'), 'half a file')
    expect(await readdir(folder)).toContain('.data.json.lock')
    const next = await start(file)
    expect(next.dataFile).toBe('loaded')
    expect((await readdir(folder)).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('keeps the id sequences: ids are never reused across restarts', async () => {
    const file = join(await tempDir(), 'data.json')
    const first = await start(file)
    const made = await (await create(first, 'highest')).json()
    expect(made.data.id).toBe(51)
    await fetch(`${first.url}/users/51`, { method: 'DELETE', headers: admin })
    await first.close()
    expect(JSON.parse(await readFile(file, 'utf8')).nextIds).toEqual({
      users: 52,
      products: 31,
      orders: 101,
    })
    const second = await start(file)
    expect((await (await create(second, 'after')).json()).data.id).toBe(52)
  })

  it('a symlinked data file stays a symlink; its target gets the writes', async () => {
    const folder = await tempDir()
    await mkdir(join(folder, 'real'))
    const link = join(folder, 'data.json')
    await symlink(join(folder, 'real', 'target.json'), link)
    const server = await start(link)
    await create(server, 'through-link')
    await server.close()
    expect((await lstat(link)).isSymbolicLink()).toBe(true)
    const saved = JSON.parse(await readFile(join(folder, 'real', 'target.json'), 'utf8'))
    expect(saved.users.some((user: { name: string }) => user.name === 'through-link')).toBe(true)
  })

  it('a full disk (a 200 KiB tmpfs): writes are refused 503 and undone, deletes go through, nothing acknowledged is lost (issue 30)', async () => {
    const folder = await tempDir()
    // A private mount namespace with a real small disk: root or not (unprivileged user namespaces).
    const { stdout } = await run('unshare', [
      '-rm',
      'sh',
      '-c',
      `mount -t tmpfs -o size=200k tmpfs "${folder}" && "${process.execPath}" "${fixture}" "${folder}"`,
    ])
    const report = JSON.parse(stdout)
    expect(report.acknowledged.length).toBeGreaterThan(50)
    expect(report.refused.length).toBe(25)
    expect(report.refusal).toBe('data file cannot be written: ENOSPC: no space left on device')
    expect(report.info).toMatchObject({
      ok: false,
      error: 'ENOSPC: no space left on device',
      unsavedChanges: true,
    })
    // Deletes shrink the data: the reserve beside the file lets them through on a full disk,
    // also one that gives stock back to products.
    expect(report.orderDelete).toBe(204)
    expect(report.deletes).toEqual({ 204: 20 })
    expect(report.afterSpace).toBe(201)
    // After a restart: every acknowledged write is there, no refused one is, deletes stay done.
    expect(report.lost).toEqual([])
    expect(report.phantom).toEqual([])
    expect(report.undeleted).toEqual([])
    expect(report.afterSpaceKept).toBe(1)
    expect(report.orderAfterRestart).toBe(404)
    // The CLI with room for log lines but not for a new copy of the file: acknowledged, and the
    // exit's last line says the file is behind, where the changes are, and why.
    expect(report.cliWrites).toEqual([201, 201, 201, 201, 201])
    expect(report.cliExit).toBe(1)
    expect(report.cliLastLine).toMatch(
      /^shop-sandbox: \S+cli\.json is not up to date: ENOSPC: no space left on device; its last 5 changes are kept in \S+\.cli\.json\.log and applied at the next start$/,
    )
  })

  it('a write whose folder is gone is refused 503 / 50300 and undone; the close has nothing unsaved', async () => {
    const folder = await tempDir()
    const sub = join(folder, 'sub')
    await mkdir(sub)
    const server = await start(join(sub, 'data.json'))
    await rm(sub, { recursive: true })
    const refused = await create(server, 'unsaved')
    expect(refused.status).toBe(503)
    expect((await refused.json()).message).toMatch(/^data file cannot be written: ENOENT/)
    const users = await (
      await fetch(`${server.url}/users?keyword=unsaved`, { headers: admin })
    ).json()
    expect(users.data.total).toBe(0)
    const info = await (await fetch(`${server.url}/__sandbox`)).json()
    expect(info.data.persistence).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^ENOENT/),
    })
    await expect(server.close()).resolves.toBeUndefined()
  })

  it('a folder removed and made again while running: writes resume, and the lock and the reserve come back', async () => {
    const folder = await tempDir()
    const sub = join(folder, 'sub')
    await mkdir(sub)
    const file = join(sub, 'data.json')
    const server = await start(file)
    await rm(sub, { recursive: true })
    expect((await create(server, 'gone')).status).toBe(503)
    await mkdir(sub)
    // Links planted at the lock and the reserve before they come back are not written through.
    const victim = join(folder, 'victim.txt')
    await writeFile(victim, 'precious')
    for (const kind of ['lock', 'reserve']) await symlink(victim, join(sub, `.data.json.${kind}`))
    expect((await create(server, 'back')).status).toBe(201)
    await waitFor(async () =>
      lstat(join(sub, '.data.json.reserve')).then(
        (stats) => stats.isFile(),
        () => false,
      ),
    )
    expect((await lstat(join(sub, '.data.json.lock'))).isFile()).toBe(true)
    expect(JSON.parse(await readFile(join(sub, '.data.json.lock'), 'utf8'))).toEqual({
      pid: process.pid,
    })
    expect(await readFile(victim, 'utf8')).toBe('precious')
    // A second server on the same file is refused again.
    await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(/is in use/)
    await server.close()
    expect(
      JSON.parse(await readFile(file, 'utf8')).users.map((user: { name: string }) => user.name),
    ).toContain('back')
  })

  it('acknowledged means on disk: kill -9 right after the answers, and the restart has every one', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const child = spawn(process.execPath, [bin, '--port', '0', '--quiet', '--data', file])
    const url = await urlOf(child)
    const acknowledged: number[] = []
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; i < 15; i++) {
          const reply = await fetch(`${url}/users`, {
            method: 'POST',
            headers: admin,
            body: JSON.stringify({ name: `k${worker}-${i}`, email: `k${worker}-${i}@example.com` }),
          })
          if (reply.status === 201) acknowledged.push((await reply.json()).data.id)
        }
      }),
    )
    child.kill('SIGKILL')
    await once(child, 'exit')
    const next = await start(file)
    const missing = []
    for (const id of acknowledged)
      if ((await fetch(`${next.url}/users/${id}`, { headers: admin })).status !== 200)
        missing.push(id)
    expect(acknowledged).toHaveLength(120)
    expect(missing).toEqual([])
  })

  it('a chain of symlinks: the lock, the writes and the mode are the real file’s; links stay links', async () => {
    const folder = await tempDir()
    const real = join(folder, 'real.json')
    await writeFile(real, '')
    await rm(real)
    const link2 = join(folder, 'link2.json')
    const link = join(folder, 'data.json')
    await symlink(real, link2)
    await symlink(link2, link)
    const server = await start(link)
    await chmod(real, 0o600)
    await create(server, 'through-two-links')
    // A second server on the real file (or on either link) is refused: one lock, on the real file.
    await expect(createSandboxServer({ port: 0, data: real })).rejects.toThrow(
      /in use by another shop-sandbox/,
    )
    await expect(createSandboxServer({ port: 0, data: link2 })).rejects.toThrow(
      /in use by another shop-sandbox/,
    )
    await server.close()
    expect((await lstat(link)).isSymbolicLink()).toBe(true)
    expect((await lstat(link2)).isSymbolicLink()).toBe(true)
    expect((await stat(real)).mode & 0o777).toBe(0o600)
    const saved = JSON.parse(await readFile(real, 'utf8'))
    expect(saved.users.some((user: { name: string }) => user.name === 'through-two-links')).toBe(
      true,
    )
  })

  it('keeps the mode of the file (600 stays 600), and the log beside it is no more readable', async () => {
    const file = join(await tempDir(), 'data.json')
    await (await start(file)).close()
    await chmod(file, 0o600)
    const server = await start(file)
    await create(server, 'private')
    expect((await stat(join(dirname(file), '.data.json.log'))).mode & 0o777).toBe(0o600)
    await server.close()
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('is pretty-printed (2 spaces, fields in schema order, nextIds last), or one line with dataFormat compact', async () => {
    const file = join(await tempDir(), 'data.json')
    await (await start(file)).close()
    const text = await readFile(file, 'utf8')
    expect(
      text.startsWith('{\n  "users": [\n    {\n      "id": 1,\n      "name": "admin",\n'),
    ).toBe(true)
    expect(Object.keys(JSON.parse(text))).toEqual(['users', 'products', 'orders', 'nextIds'])
    const compact = join(await tempDir(), 'compact.json')
    const server = await createSandboxServer({ port: 0, data: compact, dataFormat: 'compact' })
    await server.close()
    expect((await readFile(compact, 'utf8')).trim().split('\n')).toHaveLength(1)
  })

  it('hand edits while changes are pending are never lost silently: each is reported and kept beside the file', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const { lines, restore } = printedLines()
    try {
      const server = await start(file)
      const original = await readFile(file, 'utf8')
      // Copies of 20 earlier edits, and a file of the user's own named alike.
      const earlier = Array.from(
        { length: 20 },
        (_, n) => `data.edit-2020-01-01T00-00-00-${String(n).padStart(3, '0')}Z.json`,
      )
      for (const name of [...earlier, 'data.edit-mine.json'])
        await writeFile(join(folder, name), '{}')
      for (let edit = 0; edit < 5; edit++) {
        // A write is pending in the log (the file is folded only once writes pause)…
        await create(server, `pending${edit}`)
        // …when the file is edited by hand.
        await writeFile(file, original.replace('"admin"', `"edited-${edit}"`))
        await waitFor(
          async () => lines.filter((line) => line.includes('edited on disk')).length > edit,
        )
      }
      // The newest 20 copies stay: the 5 made now and 15 before them; the user's file too.
      const kept = (await readdir(folder)).filter((name) => /^data\.edit-.*\.json$/.test(name))
      expect(kept).toHaveLength(21)
      expect(kept).toContain('data.edit-mine.json')
      expect(kept.filter((name) => earlier.includes(name)).sort()).toEqual(earlier.slice(5))
      expect(lines.filter((line) => line.includes("the sandbox's data wins"))).toHaveLength(5)
      // The sandbox's data won: every acknowledged write is there.
      const users = await (
        await fetch(`${server.url}/users?keyword=pending`, { headers: admin })
      ).json()
      expect(users.data.total).toBe(5)
    } finally {
      restore()
    }
  })

  it('an edit larger than the copies of edits may take (a file truncated to 3 GB) is reported, not copied', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const { lines, restore } = printedLines()
    try {
      const server = await start(file)
      expect((await create(server, 'kept')).status).toBe(201)
      // Sparse: no disk taken, and no time to write it.
      await truncate(file, 3 * 2 ** 30)
      await waitFor(async () => lines.some((line) => line.includes('edited on disk')))
      expect(lines.find((line) => line.includes('edited on disk'))).toMatch(
        /your edit is not kept: at 3072 MB, it is larger than the 512 MB copies of edits may take$/,
      )
      expect((await readdir(folder)).filter((name) => name.includes('.edit-'))).toEqual([])
      // The sandbox's data won, and are written back.
      await waitFor(async () => (await readFile(file, 'utf8')).includes('kept'))
    } finally {
      restore()
    }
  })

  it('copies of edits take 512 MB at most together: the oldest go first', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const { lines, restore } = printedLines()
    try {
      await start(file)
      // Three earlier copies of 300 MB each (sparse: no disk taken), oldest first.
      const earlier = ['001', '002', '003'].map((n) => `data.edit-2020-01-01T00-00-00-${n}Z.json`)
      for (const name of earlier) await truncate(await touch(join(folder, name)), 300 * 2 ** 20)
      await writeFile(file, '{ not json')
      await waitFor(async () => lines.some((line) => line.includes('your edit is kept in')))
      const kept = (await readdir(folder)).filter((name) => name.includes('.edit-')).sort()
      // The new copy and the newest earlier one: with the next, 600 MB.
      expect(kept).toHaveLength(2)
      expect(kept[0]).toBe(earlier[2])
    } finally {
      restore()
    }
  })

  it('loads a valid hand edit while running, and reports and ignores an invalid one', async () => {
    const file = join(await tempDir(), 'data.json')
    const server = await start(file)
    const total = async () =>
      (await (await fetch(`${server.url}/users?pageSize=1`, { headers: admin })).json()).data.total
    const document = JSON.parse(await readFile(file, 'utf8'))
    await writeFile(
      file,
      JSON.stringify({
        ...document,
        users: document.users.slice(0, 10),
        orders: document.orders.filter((order: { userId: number }) => order.userId <= 10),
      }),
    )
    await waitFor(async () => (await total()) === 10)
    await writeFile(file, '{"users": [ broken')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await total()).toBe(10)
  })

  it('an invalid hand edit is kept beside the file, and the file is written again at once: a restart finds every acknowledged write', async () => {
    const folder = await tempDir()
    const file = join(folder, 'data.json')
    const server = await start(file)
    for (const name of ['rep1', 'rep2']) expect((await create(server, name)).status).toBe(201)
    await waitFor(async () => (await readFile(file, 'utf8')).includes('rep2'))
    await writeFile(file, '{ this is garbage')
    await waitFor(async () => (await readFile(file, 'utf8')).includes('rep2'))
    expect((await readdir(folder)).some((name) => /^data\.edit-.*\.json$/.test(name))).toBe(true)
    await server.close()
    const again = await start(file)
    const found = await fetch(`${again.url}/users?keyword=rep&fields=name`, { headers: admin })
    expect((await found.json()).data.list).toEqual([{ name: 'rep1' }, { name: 'rep2' }])
  })

  it('a data file removed while the server runs is written again with everything acknowledged', async () => {
    const file = join(await tempDir(), 'data.json')
    const server = await start(file)
    for (const name of ['kept1', 'kept2', 'kept3'])
      expect((await create(server, name)).status).toBe(201)
    await waitFor(async () => (await readFile(file, 'utf8')).includes('kept3'))
    await rm(file)
    await waitFor(async () =>
      readFile(file, 'utf8').then(
        (text) => text.includes('kept3'),
        () => false,
      ),
    )
    // Removed again right before the stop: the stop writes it.
    await rm(file)
    await server.close()
    expect(JSON.parse(await readFile(file, 'utf8')).users.length).toBe(53)
  })

  it('a data file replaced by a FIFO while running is never read: writes go on, the file is written again, the stop ends', async () => {
    // Read, a FIFO would hold the read (and a thread of libuv's pool) for good: every later
    // write waited, and a SIGTERM no longer stopped the server.
    const file = join(await tempDir(), 'data.json')
    const server = await start(file)
    expect((await create(server, 'before1')).status).toBe(201)
    await waitFor(async () => (await readFile(file, 'utf8')).includes('before1'))
    await rm(file)
    await run('mkfifo', [file])
    const isFile = () => lstat(file).then((found) => found.isFile())
    await waitFor(isFile)
    expect((await create(server, 'after1')).status).toBe(201)
    await server.close()
    expect(await isFile()).toBe(true)
    const names = JSON.parse(await readFile(file, 'utf8')).users.map(
      (user: { name: string }) => user.name,
    )
    expect(names).toEqual(expect.arrayContaining(['before1', 'after1']))
  })

  it('a data file holding what the API has no place for is refused, not emptied of it at the next write', async () => {
    // A file written with --resources and served without them lost the extra collection
    // without a word at the first write; a field the schema lacks went the same way.
    const file = join(await tempDir(), 'data.json')
    const server = await start(file)
    await server.close()
    const written = JSON.parse(await readFile(file, 'utf8'))
    for (const [change, problem] of [
      [
        { ...written, cats: [{ id: 1, name: 'Tom' }] },
        'cats: is not a collection of this API (users, products and orders); its records would be dropped at the next write',
      ],
      [
        {
          ...written,
          users: written.users.map((user: object, index: number) =>
            index === 3 ? { ...user, nickname: 'x' } : user,
          ),
        },
        'users[3].nickname: is not a field of users; it would be dropped at the next write',
      ],
    ] as const) {
      const text = JSON.stringify(change, null, 2)
      await writeFile(file, text)
      await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(problem)
      expect(await readFile(file, 'utf8')).toBe(text)
    }
  })

  it('a data file that is not a regular file (a FIFO, /dev/zero) is refused at start, naming it', async () => {
    const folder = await tempDir()
    const fifo = join(folder, 'fifo.json')
    await run('mkfifo', [fifo])
    const zero = join(folder, 'zero.json')
    await symlink('/dev/zero', zero)
    for (const file of [fifo, zero])
      await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(
        /is not a regular file/,
      )
  })

  it('a symbolic link planted at the log or the reserve is refused at start: the file it names is neither written nor made', async () => {
    const folder = await tempDir()
    const victim = join(folder, 'victim.txt')
    await writeFile(victim, 'precious')
    const absent = join(folder, 'absent.txt')
    for (const [kind, target] of [
      ['reserve', victim],
      ['log', victim],
      ['log', absent],
      ['reserve', absent],
    ] as const) {
      const file = join(folder, `${kind}-${target === victim ? 'victim' : 'absent'}.json`)
      const link = join(folder, `.${kind}-${target === victim ? 'victim' : 'absent'}.json.${kind}`)
      await symlink(target, link)
      await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(
        `the ${kind} of data file ${file} (${link}) is a symbolic link`,
      )
      expect(await readFile(victim, 'utf8')).toBe('precious')
      await expect(stat(absent)).rejects.toThrow(/ENOENT/)
      // Nothing was made beside it, and a second start says the same (the lock was let go).
      await expect(stat(file)).rejects.toThrow(/ENOENT/)
      await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(
        'is a symbolic link',
      )
    }
  })

  it('a link planted at the lock (to /dev/zero, to a file) is no owner: never read whole or written through', async () => {
    const folder = await tempDir()
    const victim = join(folder, 'victim.txt')
    await writeFile(victim, `${JSON.stringify({ pid: 1 })}\n`)
    for (const [name, target] of [
      ['zero', '/dev/zero'],
      ['victim', victim],
    ] as const) {
      const file = join(folder, `${name}.json`)
      const lock = join(folder, `.${name}.json.lock`)
      await symlink(target, lock)
      const server = await start(file)
      expect((await lstat(lock)).isFile()).toBe(true)
      expect(JSON.parse(await readFile(lock, 'utf8'))).toEqual({ pid: process.pid })
      await server.close()
    }
    expect(await readFile(victim, 'utf8')).toBe(`${JSON.stringify({ pid: 1 })}\n`)
  })

  it('a stop while writes keep coming folds them all in and ends cleanly: no exit error, nothing acknowledged missing', async () => {
    const file = join(await tempDir(), 'data.json')
    const server = await start(file)
    let acknowledged = 0
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let i = 0; i < 5000; i++) {
        const reply = await create(server, `w${writer}-${i}`).catch(() => null)
        if (reply?.status !== 201) return
        acknowledged++
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 400))
    const started = Date.now()
    await expect(server.close()).resolves.toBeUndefined()
    // Drained, not cut off after the shutdown limit (5 s): keep-alive connections are closed.
    expect(Date.now() - started).toBeLessThan(3000)
    await Promise.all(writers)
    const saved = JSON.parse(await readFile(file, 'utf8'))
    expect(acknowledged).toBeGreaterThan(10)
    expect(saved.users.length).toBeGreaterThanOrEqual(50 + acknowledged)
  })
})

describe('signals', () => {
  it('a second Ctrl-C exits at once but saves first: every acknowledged create is in the file', async () => {
    const file = join(await tempDir(), 'data.json')
    const child = spawn(process.execPath, [bin, '--port', '0', '--quiet', '--data', file])
    const url = await new Promise<string>((resolve) => {
      let out = ''
      child.stdout.on('data', (chunk) => {
        out += chunk
        const match = /listening on (\S+)/.exec(out)
        if (match) resolve(match[1]!)
      })
    })
    let acknowledged = 0
    const writer = (async () => {
      for (let i = 0; i < 5000; i++) {
        const reply = await fetch(`${url}/users`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ name: `sig${i}`, email: `sig${i}@example.com` }),
        }).catch(() => null)
        if (reply?.status !== 201) break
        acknowledged++
      }
    })()
    await new Promise((resolve) => setTimeout(resolve, 700))
    child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 5))
    child.kill('SIGINT')
    const [code] = await once(child, 'exit')
    await writer
    // 130 when the second signal cut the shutdown short, 0 when the shutdown was done first.
    expect([0, 130]).toContain(code)
    const saved = JSON.parse(await readFile(file, 'utf8'))
    expect(acknowledged).toBeGreaterThan(10)
    expect(saved.users.length).toBeGreaterThanOrEqual(50 + acknowledged)
  })
})
