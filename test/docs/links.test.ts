import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import GithubSlugger from 'github-slugger'
import { describe, expect, it } from 'vitest'
import { optionsPage, withOptionsReference } from '../../scripts/options-reference.js'
import { classify, docPages, repo } from './recipes.js'

/** Where the README's absolute links point: this repository on GitHub (package.json's `repository`). */
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  repository: { url: string }
  homepage: string
  bugs: { url: string }
}
const github = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
const raw = github.replace('https://github.com/', 'https://raw.githubusercontent.com/')

/** The anchors GitHub makes for a page's headings (and the explicit `<a id>` ones). */
function anchorsOf(page: string): Set<string> {
  const slugger = new GithubSlugger()
  const text = readFileSync(join(repo, page), 'utf8').replace(/```[\s\S]*?```/g, '')
  const anchors = new Set<string>()
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+)$/gm))
    anchors.add(slugger.slug(heading!.replace(/`/g, '')))
  for (const [, id] of text.matchAll(/<a id="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

/** Every link of a page, outside code: inline `[text](target)` and reference `[name]: target`. */
function linksOf(page: string): string[] {
  const text = readFileSync(join(repo, page), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '')
  return [
    ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm)].map((match) => match[1]!),
  ]
}

describe('the docs hold together (issue 32)', () => {
  it('the README is the front door: the two commands first, at most ~250 lines', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    const lines = readme.split('\n')
    expect(lines.length).toBeLessThanOrEqual(250)
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!
    expect(firstBlock.split('\n')[0]).toMatch(/^npm install && npm start\b/)
    expect(firstBlock.split('\n')[1]).toMatch(/^npm test\b/)
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '))
  })

  it('package.json says where the project lives, for npm', () => {
    expect(github).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/)
    expect(pkg.homepage.startsWith(github)).toBe(true)
    expect(pkg.bugs.url).toBe(`${github}/issues`)
  })

  it('every link leads somewhere: relative ones in docs/, absolute ones in the README (it is read on npm too)', () => {
    const broken: string[] = []
    for (const page of docPages()) {
      for (const link of linksOf(page)) {
        // Links elsewhere are the reader's to follow; links into this repository are checked.
        if (/^(?:mailto:|https?:)/.test(link) && !link.startsWith(github) && !link.startsWith(raw))
          continue
        let target: string
        let anchor: string | undefined
        if (link.startsWith(`${github}/blob/main/`) || link.startsWith(`${github}/tree/main/`)) {
          ;[target, anchor] = link.slice(`${github}/blob/main/`.length).split('#') as [
            string,
            string?,
          ]
        } else if (link.startsWith(`${raw}/main/`)) {
          target = link.slice(`${raw}/main/`.length)
        } else if (/^https?:/.test(link)) {
          broken.push(`${page}: ${link} (not a file of main)`)
          continue
        } else {
          if (page === 'README.md') {
            broken.push(
              `README.md: ${link} (relative: it breaks on npm; link ${github}/blob/main/…)`,
            )
            continue
          }
          const [path, hash] = link.split('#') as [string, string?]
          target = path === '' ? page : normalize(join(dirname(page), path))
          anchor = hash
        }
        if (!existsSync(join(repo, target))) {
          broken.push(`${page}: ${link} (no ${target})`)
          continue
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`)
      }
    }
    expect(broken).toEqual([])
  })

  it('every page is reachable from the docs index or the README', () => {
    const linked = new Set<string>()
    for (const page of docPages())
      for (const link of linksOf(page)) {
        const path = link.replace(`${github}/blob/main/`, '').split('#')[0]!
        if (path && !/^https?:/.test(path))
          linked.add(page === 'README.md' ? path : normalize(join(dirname(page), path)))
      }
    const orphans = docPages().filter(
      (page) => page !== 'README.md' && page !== 'docs/README.md' && !linked.has(page),
    )
    expect(orphans.map((page) => relative(repo, join(repo, page)))).toEqual([])
  })

  it('the options reference is the options table (npm run docs:options writes it)', () => {
    const page = readFileSync(optionsPage, 'utf8')
    const normalized = (text: string) => text.replace(/\s+/g, ' ').replace(/ ?\| ?-+ ?/g, '|-')
    expect(normalized(withOptionsReference(page))).toBe(normalized(page))
    // …and a row per option, so a new option cannot be left out of the page.
    expect(page).toMatch(/\| `journalBodyBytes` +\|/)
  })

  it('a block that is neither a file, commands, nor marked is refused', () => {
    const block = { page: 'x.md', line: 3, language: 'ts', content: 'const a = 1' }
    expect(() => classify(block)).toThrow('x.md:3: a ts block that is neither a file')
    expect(classify({ ...block, content: '// src/a.ts\nconst a = 1' })).toMatchObject({
      use: 'file',
      path: 'src/a.ts',
    })
    expect(classify({ ...block, annotation: 'fragment (a)' })).toEqual({
      use: 'skip',
      why: 'fragment (a)',
    })
  })
})
