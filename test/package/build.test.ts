import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { seedData } from '../../shop/index.js'

/**
 * The built package (npm test builds dist/ first): its ESM bundles and CommonJS copy give the
 * same data as the source, whether they read the default data set the build prepared or load
 * faker to generate another (issue 18).
 */
const dist = fileURLToPath(new URL('../../dist/', import.meta.url))
const exec = promisify(execFile)

type Entry = {
  createSandbox(): { snapshot(): unknown }
  seedData(options?: object): unknown
}
const esm = (await import(`${dist}index.js`)) as Entry
const cjs = createRequire(import.meta.url)(`${dist}cjs/index.js`) as Entry

describe('the built package', () => {
  it.each([
    ['ESM', esm],
    ['CommonJS', cjs],
  ])('%s: the default data set is byte-identical to the one the source generates', (_, entry) => {
    const generated = JSON.stringify(seedData())
    expect(JSON.stringify(entry.createSandbox().snapshot())).toBe(generated)
    expect(JSON.stringify(entry.seedData())).toBe(generated)
  })

  it.each([
    ['ESM', esm],
    ['CommonJS', cjs],
  ])('%s: another seed or other counts generate the same bytes as the source', (_, entry) => {
    for (const options of [{ seed: 7 }, { users: 3, products: 2, orders: 4 }]) {
      expect(JSON.stringify(entry.seedData(options))).toBe(JSON.stringify(seedData(options)))
    }
  })

  it('carries the licence of every package it bundles (zod, fastest-levenshtein, faker)', async () => {
    const notices = await readFile(`${dist}THIRD-PARTY-NOTICES.md`, 'utf8')
    const chunks = await readdir(`${dist}chunks`)
    const esmText = (
      await Promise.all(chunks.map((file) => readFile(`${dist}chunks/${file}`, 'utf8')))
    ).join('')
    // Loaded from node_modules, the packages would be imported by name; bundled, they are not.
    expect(esmText).not.toMatch(/from"(zod|fastest-levenshtein)"/)
    for (const [name, licence] of [
      ['zod', 'LICENSE'],
      ['fastest-levenshtein', 'LICENSE.md'],
      ['@faker-js/faker', 'LICENSE'],
    ]) {
      const text = await readFile(`${dist}../node_modules/${name}/${licence}`, 'utf8')
      expect(notices).toContain(`## ${name} `)
      expect(notices).toContain(text.trim())
    }
  })

  it('loads faker only when it has data to generate', async () => {
    const probe = (seed: number) =>
      exec(process.execPath, [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module'
const { createSandbox } = await import(${JSON.stringify(`${dist}index.js`)})
const sandbox = createSandbox({ seed: ${seed} })
const response = await sandbox.fetch('http://localhost/users/1', { headers: { authorization: 'Bearer sandbox-admin-token' } })
const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('@faker-js'))
console.log(JSON.stringify({ status: response.status, loaded }))`,
      ])
    expect(JSON.parse((await probe(1)).stdout)).toEqual({ status: 200, loaded: false })
    expect(JSON.parse((await probe(2)).stdout)).toEqual({ status: 200, loaded: true })
  })

  it('carries the MCP SDK only on the path of shop-sandbox mcp: no entry point loads it (issue 46)', async () => {
    // The SDK is bundled (a devDependency: docs/decisions/2026-11-mcp.md); its stdio transport
    // marks the code it brought.
    const sdk = 'StdioServerTransport'
    /** Every file a module imports statically (not `import()`), and the packages named. */
    const reached = new Map<string, string>()
    const packages = new Set<string>()
    const walk = async (file: string): Promise<void> => {
      if (reached.has(file)) return
      const text = await readFile(file, 'utf8')
      reached.set(file, text)
      for (const [, target] of text.matchAll(/(?:from|import)\s*"([^"]+)"/g)) {
        if (target!.startsWith('.')) await walk(resolve(dirname(file), target!))
        else packages.add(target!)
      }
    }
    for (const entry of ['index.js', 'node/index.js', 'browser/index.js', 'bin/shop-sandbox.js'])
      await walk(`${dist}${entry}`)
    expect(reached.size).toBeGreaterThan(4)
    expect(packages).toContain('msw')
    expect([...packages].filter((name) => name.startsWith('@modelcontextprotocol'))).toEqual([])
    expect([...reached].filter(([, text]) => text.includes(sdk)).map(([file]) => file)).toEqual([])
    // The command's own chunk is the one that has it, and it imports no package of the SDK's.
    const bin = reached.get(`${dist}bin/shop-sandbox.js`)!
    const lazy = [...bin.matchAll(/import\("([^"]+)"\)/g)].map(([, target]) => target!)
    const texts = await Promise.all(
      lazy.map((target) => readFile(resolve(`${dist}bin`, target), 'utf8')),
    )
    const mcp = texts.filter((text) => text.includes(sdk))
    expect(mcp).toHaveLength(1)
    expect(mcp[0]).not.toMatch(/from\s*"(@modelcontextprotocol|ajv|express|hono)/)
  })
})
