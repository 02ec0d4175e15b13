import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// Issue 44: the source reads from the bottom up. No file imports one that imports it back (type
// imports count: a circle of types is a circle all the same), and no hand-written source file
// grows past 700 lines.
const root = fileURLToPath(new URL('../..', import.meta.url))
const notSource = /^(?:\.|node_modules$|dist$|test$|coverage$)/

const files = readdirSync(root, { withFileTypes: true })
  .filter((entry) => !notSource.test(entry.name))
  .flatMap((entry) =>
    entry.isDirectory()
      ? readdirSync(join(root, entry.name), { recursive: true, encoding: 'utf8' }).map((file) =>
          join(root, entry.name, file),
        )
      : [join(root, entry.name)],
  )
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.includes('/.build/'))

/** A file's relative imports and re-exports, resolved to files (`import type` included). */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const found: string[] = []
  source.forEachChild((node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith('.')
    ) {
      const target = resolve(dirname(file), node.moduleSpecifier.text.replace(/\.js$/, '.ts'))
      if (existsSync(target)) found.push(target)
    }
  })
  return found
}

/** The strongly connected components of more than one file (Tarjan's algorithm). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string) => {
    index.set(file, counter)
    low.set(file, counter++)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(relative(root, member))
    } while (member !== file)
    if (component.length > 1) found.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe('the source reads from the bottom up', () => {
  it('finds the source (the walk reads it)', () => {
    expect(files.length).toBeGreaterThan(100)
  })

  it('has no import circles, types included', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file)]))
    expect(circles(graph)).toEqual([])
  })

  it('finds a circle when there is one (the check can fail)', () => {
    const graph = new Map([
      [join(root, 'a.ts'), [join(root, 'b.ts')]],
      [join(root, 'b.ts'), [join(root, 'a.ts')]],
    ])
    expect(circles(graph)).toEqual([['a.ts', 'b.ts']])
  })

  it('has no hand-written source file past 700 lines', () => {
    const long = files
      .map((file) => [relative(root, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 700)
    expect(long).toEqual([])
  })
})
