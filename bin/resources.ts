import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import type { AnyResourceDefinition } from '../resources/define.js'

/** The module `--resources <module>` (or `--resources=<module>`) names, if any. */
export function resourcesArgument(argv: readonly string[]): string | undefined {
  for (const [index, arg] of argv.entries()) {
    if (arg === '--resources') return argv[index + 1]
    if (arg.startsWith('--resources=')) return arg.slice('--resources='.length)
  }
  return undefined
}

/**
 * The resource definitions a module exports: its default export (a list of `defineResource`
 * definitions, or one), else an export named `resources`. A TypeScript module loads where Node
 * strips types itself (22.18, 23.6 and later) or under a loader (`--import tsx`). Returns the
 * one line to print when the module cannot be used.
 */
export async function loadResources(
  module: string,
): Promise<readonly AnyResourceDefinition[] | string> {
  let loaded: Record<string, unknown>
  try {
    loaded = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(resolve(module)))
      return `--resources ${module}: no such module`
    if (
      code === 'ERR_UNKNOWN_FILE_EXTENSION' ||
      (/\.(c|m)?ts$/.test(module) && code === 'ERR_UNKNOWN_FILE_EXTENSION')
    )
      return `--resources ${module}: this Node cannot load TypeScript by itself; use Node 22.18 or later, or run with NODE_OPTIONS='--import tsx' (npm install -D tsx)`
    return `--resources ${module}: cannot load it: ${String(message ?? error).split('\n')[0]}`
  }
  const exported = loaded.default ?? loaded.resources
  const list = Array.isArray(exported) ? exported : exported === undefined ? undefined : [exported]
  if (!list || list.length === 0)
    return `--resources ${module}: export a list of resource definitions as the module's default (export default [categories, tags])`
  return list as AnyResourceDefinition[]
}
