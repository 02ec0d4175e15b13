import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { check } from 'recheck'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// CONTRACT C3 and issue 43: every scan of caller text is linear. Every regular expression in
// the source (literals, and `new RegExp` of constant text) is checked by recheck, a ReDoS
// checker: none may backtrack super-linearly. The lint's regexp rules catch most such patterns
// as they are written; recheck also catches the ones built from parts (the journal's old
// secret-value pattern was one).
const repo = join(import.meta.dirname, '../..')
const sourceFolders = readdirSync(repo, { withFileTypes: true })
  .filter(
    (entry) =>
      entry.isDirectory() && !/^(?:\.|node_modules|dist|test|bench|scripts|demo)/.test(entry.name),
  )
  .map((entry) => entry.name)

interface Found {
  where: string
  source: string | null
  flags: string
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(repo, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(repo, folder, file))
}

/** Every regular expression of a file, with constant parts resolved (`new RegExp(WORDS.join('|'))` is not). */
function regexesOf(file: string): Found[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const constants = new Map<string, ts.Expression>()
  const found: Found[] = []
  const text = (node: ts.Expression | undefined): string | null => {
    if (!node) return ''
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text
    if (ts.isParenthesizedExpression(node)) return text(node.expression)
    if (ts.isIdentifier(node))
      return constants.has(node.text) ? text(constants.get(node.text)) : null
    if (ts.isTemplateExpression(node)) {
      let joined = node.head.text
      for (const span of node.templateSpans) {
        const part = text(span.expression)
        if (part === null) return null
        joined += part + span.literal.text
      }
      return joined
    }
    return null
  }
  const where = (node: ts.Node) =>
    `${relative(repo, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      constants.set(node.name.text, node.initializer)
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText()
      const end = literal.lastIndexOf('/')
      found.push({
        where: where(node),
        source: literal.slice(1, end),
        flags: literal.slice(end + 1),
      })
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [pattern, flags] = node.arguments ?? []
      found.push({ where: where(node), source: text(pattern), flags: text(flags) ?? '' })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * Regular expressions built at run time from lists of literal words (no quantifier can come
 * from the list): each named with why it is linear.
 */
const builtFromWords: Record<string, string> = {
  'contract/secrets.ts':
    'anyOf(words): an alternation of literal words, the words written in the file',
}

const all = sourceFolders.flatMap(sourceFiles).concat(join(repo, 'index.ts')).flatMap(regexesOf)

describe('regular expressions in the source', () => {
  it('are found (the walk reads the source)', () => {
    expect(all.length).toBeGreaterThan(50)
  })

  it('are all linear: recheck finds no super-linear backtracking', async () => {
    const problems: string[] = []
    for (const { where, source, flags } of all) {
      if (source === null) {
        if (!builtFromWords[where.split(':')[0]!])
          problems.push(`${where}: built at run time; say why it is linear`)
        continue
      }
      const diagnostics = await check(source, flags.replace(/[^dgimsuvy]/g, ''), {
        timeout: 10_000,
      })
      if (diagnostics.status !== 'safe')
        problems.push(
          `${where}: /${source}/${flags} is ${diagnostics.status}${diagnostics.status === 'vulnerable' ? ` (${diagnostics.complexity.type}, attack ${diagnostics.attack.pattern})` : ''}`,
        )
    }
    expect(problems).toEqual([])
  }, 120_000)
})
