import { spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'

const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
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

  it('a write that cannot reach the disk is never acknowledged: 503 / 50300 until it can, shown in GET /__sandbox', async () => {
    const folder = await tempDir()
    const sub = join(folder, 'sub')
    await mkdir(sub)
    const file = join(sub, 'data.json')
    const server = await start(file)
    // The folder goes away (as a full or read-only disk would refuse the write).
    await rename(sub, join(folder, 'gone'))
    expect((await create(server, 'lost-1')).status).toBe(201)
    await waitFor(async () => (await create(server, 'probe')).status === 503)
    const refused = await create(server, 'lost-2')
    expect(refused.status).toBe(503)
    const body = await refused.json()
    expect(body).toMatchObject({ code: 50300, data: null })
    expect(body.message).toMatch(/^data file cannot be written: ENOENT/)
    expect((await fetch(`${server.url}/users/1`, { headers: admin })).status).toBe(200)
    const info = await (await fetch(`${server.url}/__sandbox`)).json()
    expect(info.data.persistence).toMatchObject({ ok: false, unsavedChanges: true })
    expect(info.data.persistence.error).toMatch(/^ENOENT/)
    // The disk comes back: the retry saves everything acknowledged, and writes go on.
    await rename(join(folder, 'gone'), sub)
    await waitFor(async () => (await create(server, 'back')).status === 201)
    await server.close()
    const names = JSON.parse(await readFile(file, 'utf8')).users.map(
      (user: { name: string }) => user.name,
    )
    expect(names).toContain('lost-1')
    expect(names).not.toContain('lost-2')
    expect(names).toContain('back')
  })

  it('closing with changes it cannot save rejects (the CLI then exits 1)', async () => {
    const folder = await tempDir()
    const sub = join(folder, 'sub')
    await mkdir(sub)
    const server = await start(join(sub, 'data.json'))
    await rm(sub, { recursive: true })
    expect((await create(server, 'unsaved')).status).toBe(201)
    await expect(server.close()).rejects.toThrow(/changes were not saved/)
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
