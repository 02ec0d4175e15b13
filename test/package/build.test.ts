import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
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
})
