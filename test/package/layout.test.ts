import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Folders of test/ that mirror no source folder, each for what no one source folder holds:
 * black-box tests of the whole package (`api`: the contract through the package's entry points,
 * in process or over HTTP; `e2e`: whole processes, servers, browsers, the command line, the
 * demo), the attacks and the fuzzer, the packed tarball, helpers, inputs and outputs.
 */
const ownFolders = new Set([
  'api',
  'e2e',
  'attacks',
  'fuzz',
  'package',
  'support',
  'fixtures',
  'artifacts',
])

const testFolders = readdirSync(join(root, 'test')).filter((name) =>
  statSync(join(root, 'test', name)).isDirectory(),
)

it('test/<folder>/ mirrors a folder of the repository, or is one of its own (issue 31)', () => {
  const orphans = testFolders.filter(
    (name) =>
      !ownFolders.has(name) &&
      !statSync(join(root, name), { throwIfNoEntry: false })?.isDirectory(),
  )
  expect(orphans).toEqual([])
})

it('tests sit beside what they test: three in four of test/<folder>/ import from <folder>/ (issue 44)', () => {
  const strays: string[] = []
  for (const folder of testFolders) {
    if (ownFolders.has(folder) || folder === 'docs') continue
    const files = readdirSync(join(root, 'test', folder)).filter((name) =>
      name.endsWith('.test.ts'),
    )
    const own = files.filter((file) =>
      readFileSync(join(root, 'test', folder, file), 'utf8').includes(`from '../../${folder}/`),
    )
    if (own.length * 4 < files.length * 3)
      strays.push(`test/${folder}: ${own.length} of ${files.length} import from ${folder}/`)
  }
  expect(strays).toEqual([])
})
