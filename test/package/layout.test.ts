import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** Folders of test/ that are not a source folder's: helpers, inputs, outputs, the package itself. */
const ownFolders = new Set(['support', 'fixtures', 'artifacts', 'package'])

it('tests mirror the source layout: test/<folder>/ tests <folder>/ (issue 31)', () => {
  const folders = readdirSync(join(root, 'test')).filter((name) =>
    statSync(join(root, 'test', name)).isDirectory(),
  )
  const orphans = folders.filter(
    (name) =>
      !ownFolders.has(name) &&
      !statSync(join(root, name), { throwIfNoEntry: false })?.isDirectory(),
  )
  expect(orphans).toEqual([])
})
