import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkDocument } from '../../index.js'
import { createSandboxServer } from '../../node/index.js'

const bin = fileURLToPath(new URL('../../dist/bin/shop-sandbox.js', import.meta.url))
const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
const tempDir = () => mkdtemp(join(tmpdir(), 'shop-sandbox-data-'))

describe('persistence to a JSON file', () => {
  it('creates the file from the seed, writes changes back, and loads them on the next start', async () => {
    const file = join(await tempDir(), 'data.json')
    const first = await createSandboxServer({ port: 0, data: file })
    expect(first.dataFile).toBe('created')
    expect(JSON.parse(await readFile(file, 'utf8')).users).toHaveLength(50)
    const created = await fetch(`${first.url}/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'persisted', email: 'persisted@example.com' }),
    })
    expect(created.status).toBe(201)
    await fetch(`${first.url}/users/3`, { method: 'DELETE', headers: admin })
    await first.close()
    const saved = JSON.parse(await readFile(file, 'utf8'))
    expect(saved.users.map((user: { name: string }) => user.name)).toContain('persisted')

    const second = await createSandboxServer({ port: 0, data: file })
    try {
      expect(second.dataFile).toBe('loaded')
      const list = await (
        await fetch(`${second.url}/users?keyword=persisted`, { headers: admin })
      ).json()
      expect(list.data.total).toBe(1)
      expect((await fetch(`${second.url}/users/3`, { headers: admin })).status).toBe(404)
    } finally {
      await second.close()
    }
  })

  it('writes after a change without waiting for shutdown (debounced)', async () => {
    const file = join(await tempDir(), 'data.json')
    const server = await createSandboxServer({ port: 0, data: file })
    try {
      await fetch(`${server.url}/products/1`, {
        method: 'PATCH',
        headers: admin,
        body: JSON.stringify({ stock: 4242 }),
      })
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(JSON.parse(await readFile(file, 'utf8')).products[0].stock).toBe(4242)
    } finally {
      await server.close()
    }
  })

  it.each([
    ['not JSON', '{"users": [', 'is not valid JSON'],
    [
      'a bad record',
      JSON.stringify({ users: [{ id: 1 }], products: [], orders: [] }),
      'users[0].name: is required',
    ],
  ])(
    'refuses %s with a clear message and leaves the file untouched',
    async (_what, content, message) => {
      const file = join(await tempDir(), 'data.json')
      await writeFile(file, content)
      await expect(createSandboxServer({ port: 0, data: file })).rejects.toThrow(message)
      expect(await readFile(file, 'utf8')).toBe(content)
      const child = spawn(process.execPath, [bin, '--port', '0', '--data', file], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const [code] = await once(child, 'exit')
      expect(code).toBe(1)
      expect(stderr).toContain(message)
      expect(await readFile(file, 'utf8')).toBe(content)
    },
  )

  it('survives kill -9 while writing under load: the file always loads, no temp files are left valid-looking', async () => {
    const dir = await tempDir()
    const file = join(dir, 'data.json')
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, [bin, '--port', '0', '--quiet', '--data', file], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk) => (output += chunk))
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const match = /listening on (\S+)/.exec(output)
          if (match) resolve(match[1]!)
        })
        child.once('exit', () => reject(new Error(`exited early: ${output}`)))
      })
      const load = (async () => {
        for (let i = 0; ; i++) {
          const body = JSON.stringify({
            name: `load-${round}-${i}`,
            email: `load-${round}-${i}@example.com`,
          })
          await fetch(`${url}/users`, { method: 'POST', headers: admin, body }).catch(
            () => undefined,
          )
          if (child.exitCode !== null || child.signalCode !== null) return
        }
      })()
      await new Promise((resolve) => setTimeout(resolve, 300 + round * 170))
      child.kill('SIGKILL')
      await once(child, 'exit')
      await load
      const check = checkDocument(JSON.parse(await readFile(file, 'utf8')))
      expect(check.ok).toBe(true)
    }
    const restarted = await createSandboxServer({ port: 0, data: file })
    expect(restarted.dataFile).toBe('loaded')
    expect(restarted.sandbox.db.users.size).toBeGreaterThan(50)
    await restarted.close()
    const leftovers = (await readdir(dir)).filter((name) => name !== 'data.json')
    for (const name of leftovers) expect(name).toMatch(/^\.data\.json\.[0-9a-f]+\.tmp$/)
  })
})
