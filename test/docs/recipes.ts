import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The recipes of the README and `docs/`, read from the pages: every code block that stands for a
 * file or a command, grouped into the projects the pages start (`<!-- doc-project: … -->`), in
 * order. The annotations are HTML comments, invisible where the pages are read:
 *
 * - `<!-- doc-project: name; package: {"type":"module"}; app: vite; msw: 2; browser: chromium -->`
 *   starts a fresh project (its package.json fields, an app of the reader's own that the page
 *   assumes, the msw majors it is for, a browser it needs); `stacks: first (why)` runs it on the
 *   first stack only, for a recipe where msw answers nothing (the CLI's server and curl);
 * - `<!-- doc: background until <url> answers -->` runs the next command block in the background;
 * - `<!-- doc-stop -->` stops what runs in the background;
 * - `<!-- doc-file: <path> from <project> -->` copies a file an earlier project wrote;
 * - `<!-- doc: file <path> -->` before a block makes it that file (JSON, which cannot name itself
 *   in a first line: a reader copies the block whole);
 * - `<!-- doc: not run (why) -->`, `<!-- doc: fragment (…) -->`, `<!-- doc: output -->` before a
 *   block say it is not run, and why.
 *
 * A block is a file when its first line names one (`// src/api.test.ts`), a command block when
 * its language is `sh`, output when it is `text` (or JSON naming no file). Anything else must say
 * what it is, or the suite fails: a recipe nobody runs is a recipe that drifts.
 */

export const repo = fileURLToPath(new URL('../../', import.meta.url))

export interface Project {
  name: string
  page: string
  line: number
  packageFields: Record<string, unknown>
  app?: string
  msw?: number[]
  browser?: string
  /** Run on the first stack only: msw answers nothing in it (`stacks: first`). */
  firstStackOnly?: boolean
  steps: Step[]
}

export type Step =
  | { kind: 'file'; path: string; content: string; where: string }
  | { kind: 'commands'; commands: Command[]; background?: string; where: string }
  | { kind: 'stop'; where: string }
  | { kind: 'copy'; path: string; from: string; where: string }

export interface Command {
  text: string
  /** What its output must be; `…` stands for anything. */
  expected: string[]
}

export interface Block {
  page: string
  line: number
  language: string
  content: string
  annotation?: string
}

/** The pages: README.md and every Markdown file of docs/. */
export function docPages(): string[] {
  const pages = ['README.md']
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(repo, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) pages.push(path)
    }
  }
  walk('docs')
  return pages
}

const FILE_LINE = /^(?:\/\/|#)\s+([\w@.-]+(?:\/[\w@.-]+)*\.[a-z]{1,5})(?:\s|:|$)/
const REPOSITORY_COMMAND = /^npm (?:test|start|run [\w:-]+|install && npm start)\b/

/** Splits a command block into commands, each with the `# …` output lines under it. */
export function commandsOf(content: string): Command[] {
  const commands: Command[] = []
  let pending = ''
  for (const raw of content.split('\n')) {
    const line = raw.trimEnd()
    if (pending) {
      pending += `\n${line}`
      if (!line.endsWith('\\')) {
        commands.push({ text: pending, expected: [] })
        pending = ''
      }
      continue
    }
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const last = commands.at(-1)
      if (!last) throw new Error(`an output line before any command: ${line}`)
      last.expected.push(line.replace(/^#\s?/, ''))
      continue
    }
    // A comment after the command (`npx x   # does y`) is for the reader.
    const text = line.replace(/\s+#\s.*$/, '')
    if (text.endsWith('\\')) pending = text
    else commands.push({ text, expected: [] })
  }
  return commands
}

/** Every fenced block of a page, with the `doc:` annotation just before it, and the directives. */
export function pageItems(page: string): Array<Block | { directive: string; line: number }> {
  const lines = readFileSync(join(repo, page), 'utf8').split('\n')
  const items: Array<Block | { directive: string; line: number }> = []
  let annotation: string | undefined
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const comment = /^\s*<!--\s*(doc(?:-[a-z]+)?)(?::\s*([\s\S]*?))?\s*-->\s*$/.exec(line)
    if (comment) {
      if (comment[1] === 'doc') annotation = comment[2]
      else
        items.push({
          directive: `${comment[1]}${comment[2] ? `: ${comment[2]}` : ''}`,
          line: index + 1,
        })
      continue
    }
    const fence = /^(\s*)```(\w*)\s*$/.exec(line)
    if (!fence) {
      if (line.trim() !== '') annotation = undefined
      continue
    }
    const indent = fence[1]!.length
    const body: string[] = []
    const start = index + 1
    for (index++; index < lines.length && !/^\s*```\s*$/.test(lines[index]!); index++)
      body.push(lines[index]!.slice(Math.min(indent, lines[index]!.search(/\S|$/))))
    items.push({ page, line: start, language: fence[2]!, content: body.join('\n'), annotation })
    annotation = undefined
  }
  return items
}

/** How a block is used: a file, commands, or not run (and why); throws for an unclassified one. */
export function classify(
  block: Block,
):
  | { use: 'file'; path: string; content: string }
  | { use: 'commands'; commands: Command[]; background?: string }
  | { use: 'skip'; why: string } {
  const where = `${block.page}:${block.line}`
  const note = block.annotation
  if (note && /^(?:not run|fragment|output)\b/.test(note)) return { use: 'skip', why: note }
  // A JSON file named beside its block (JSON has no comments: a reader copies it whole).
  const named = note ? /^file (\S+)$/.exec(note) : null
  if (named) return { use: 'file', path: named[1]!, content: `${block.content}\n` }
  const first = block.content.split('\n')[0] ?? ''
  const file = FILE_LINE.exec(first)
  if (file && block.language !== 'sh') {
    // A JSON file's naming line is for the reader; the file itself has none.
    const content =
      block.language === 'json' ? block.content.split('\n').slice(1).join('\n') : block.content
    return { use: 'file', path: file[1]!, content: `${content}\n` }
  }
  if (block.language === 'text' || (block.language === 'json' && !file))
    return { use: 'skip', why: 'output' }
  if (block.language === 'sh') {
    const commands = commandsOf(block.content)
    if (commands.every((command) => REPOSITORY_COMMAND.test(command.text)))
      return { use: 'skip', why: "this repository's own commands (CI runs npm test)" }
    const background = note && /^background until (\S+) answers$/.exec(note)?.[1]
    if (note && !background) throw new Error(`${where}: unknown annotation '${note}'`)
    return { use: 'commands', commands, ...(background ? { background } : {}) }
  }
  throw new Error(
    `${where}: a ${block.language || 'plain'} block that is neither a file (a first line naming one), a command block (sh), nor marked <!-- doc: not run (why) -->`,
  )
}

/** The projects of every page, in order, with their steps. */
export function docProjects(pages = docPages()): Project[] {
  const projects: Project[] = []
  for (const page of pages) {
    let project: Project | undefined
    for (const item of pageItems(page)) {
      if ('directive' in item) {
        const where = `${page}:${item.line}`
        const [name, argument = ''] = item.directive.split(/:\s*/, 2) as [string, string?]
        if (name === 'doc-project') {
          const [projectName, ...settings] = item.directive
            .slice('doc-project:'.length)
            .split(';')
            .map((part) => part.trim())
          project = { name: projectName!, page, line: item.line, packageFields: {}, steps: [] }
          for (const setting of settings) {
            const [key, ...rest] = setting.split(':')
            const value = rest.join(':').trim()
            if (key === 'package')
              project.packageFields = JSON.parse(value) as Record<string, unknown>
            else if (key === 'app') project.app = value.split(' ')[0]
            else if (key === 'msw') project.msw = value.split(',').map(Number)
            else if (key === 'browser') project.browser = value
            else if (key === 'stacks' && value.split(' ')[0] === 'first')
              project.firstStackOnly = true
            else throw new Error(`${where}: unknown project setting '${key}'`)
          }
          projects.push(project)
        } else if (!project) {
          throw new Error(`${where}: ${name} before any doc-project`)
        } else if (name === 'doc-stop') project.steps.push({ kind: 'stop', where })
        else if (name === 'doc-file') {
          const match = /^(\S+) from (\S+)$/.exec(item.directive.slice('doc-file:'.length).trim())
          if (!match) throw new Error(`${where}: doc-file takes '<path> from <project>'`)
          project.steps.push({ kind: 'copy', path: match[1]!, from: match[2]!, where })
        } else throw new Error(`${where}: unknown directive ${name} ${argument}`)
        continue
      }
      const use = classify(item)
      const where = `${page}:${item.line}`
      if (use.use === 'skip') continue
      if (!project)
        throw new Error(`${where}: a runnable block before any <!-- doc-project: … --> on the page`)
      if (use.use === 'file')
        project.steps.push({ kind: 'file', path: use.path, content: use.content, where })
      else project.steps.push({ kind: 'commands', ...use, where })
    }
  }
  return projects
}

/** `a…b` as a pattern: the text around each `…` literally, anything in between. */
export function matchesExpected(actual: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*')
  return new RegExp(`^${pattern}$`).test(actual)
}

export const pageOf = (path: string) => relative(repo, path)
