import { readdir, stat } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isThenable } from '../contract/exchange.js'
import { NotAFile, readRegularFile } from '../server/regular-file.js'
import type { ApiDefinition } from '../resources/api.js'
import { MAX_SCENARIOS } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'

/**
 * Every value of `--<flag> <module>` and `--<flag>=<module>` on the command line, in order.
 * Read before yargs: the modules' resources get count flags of their own.
 */
export function moduleArguments(argv: readonly string[], flag: string): string[] {
  const modules: string[] = []
  for (const [index, arg] of argv.entries()) {
    if (arg === `--${flag}` && argv[index + 1] !== undefined) modules.push(argv[index + 1]!)
    else if (arg.startsWith(`--${flag}=`)) modules.push(arg.slice(flag.length + 3))
  }
  return modules
}

/** Whether a value is an API (`defineApi`) rather than a resource. */
export function isApi(value: unknown): value is ApiDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { resources?: unknown }).resources) &&
    typeof (value as { accounts?: unknown }).accounts === 'object'
  )
}

/**
 * A module's exports, or the one line to print when it cannot be loaded. A TypeScript module
 * loads where Node strips types itself (22.18, 23.6 and later) or under a loader (`--import tsx`).
 */
async function importModule(
  flag: string,
  module: string,
): Promise<Record<string, unknown> | string> {
  try {
    return (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(resolve(module)))
      return `--${flag} ${module}: no such module`
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION')
      return `--${flag} ${module}: this Node cannot load TypeScript by itself; use Node 22.18 or later, or run with NODE_OPTIONS='--import tsx' (npm install -D tsx)`
    return `--${flag} ${module}: cannot load it: ${String(message ?? error).split('\n')[0]}`
  }
}

/**
 * The resource definitions a `--resources` module exports: its default export (a list of
 * `defineResource` definitions, or one), else an export named `resources`.
 */
export async function loadResources(
  module: string,
): Promise<readonly AnyResourceDefinition[] | string> {
  const loaded = await importModule('resources', module)
  if (typeof loaded === 'string') return loaded
  let exported: unknown
  try {
    exported = loaded.default ?? loaded.resources
    if (isThenable(exported))
      return `--resources ${module}: its default export is a promise: export the list itself (a module may await what it needs at its top level)`
    if (isApi(exported))
      return `--resources ${module}: its default export is an API (defineApi), not resources: pass it with --api ${module}`
  } catch (error) {
    return `--resources ${module}: its export cannot be read: ${String((error as Error).message ?? error).split('\n')[0]}`
  }
  const list = Array.isArray(exported) ? exported : exported === undefined ? undefined : [exported]
  if (!list || list.length === 0)
    return `--resources ${module}: export a list of resource definitions as the module's default (export default [categories, tags])`
  return list as AnyResourceDefinition[]
}

/** The API (`defineApi`) an `--api` module exports: its default export, else an export named `api`. */
export async function loadApi(module: string): Promise<ApiDefinition | string> {
  const loaded = await importModule('api', module)
  if (typeof loaded === 'string') return loaded
  const exported = loaded.default ?? loaded.api
  if (!isApi(exported))
    return `--api ${module}: export an API made with defineApi({ title, resources, accounts }) as the module's default${Array.isArray(exported) ? ' (this module exports resources: pass it with --resources)' : ''}`
  return exported
}

/**
 * The scenarios `--scenarios <path>` names (CONTRACT C5): a module whose default export (or
 * `scenarios` export) is a list of `defineScenario` definitions, or a folder of `<name>.json`
 * files each holding `{ description, data?, overrides?, settings? }`. A file that is no JSON
 * object is one line naming it; what is wrong inside a scenario is named when the sandbox is
 * made.
 */
export async function loadScenarios(path: string): Promise<readonly unknown[] | string> {
  const found = await stat(path).catch(() => null)
  if (found?.isDirectory()) {
    const files = (await readdir(path)).filter((name) => name.endsWith('.json')).sort()
    if (files.length === 0) return `--scenarios ${path}: the folder holds no <name>.json files`
    // Counted before any is read: each is parsed whole.
    if (files.length > MAX_SCENARIOS)
      return `--scenarios ${path}: the folder holds ${files.length} <name>.json files; a sandbox takes at most ${MAX_SCENARIOS.toLocaleString('en')} scenarios`
    const scenarios: unknown[] = []
    for (const file of files) {
      let parsed: unknown
      try {
        parsed = JSON.parse((await readRegularFile(join(path, file))).replace(/^\uFEFF/, ''))
      } catch (error) {
        if (error instanceof NotAFile)
          return `--scenarios ${join(path, file)}: not a regular file (a FIFO or a device is never read)`
        return `--scenarios ${join(path, file)}: not JSON: ${(error as Error).message.split('\n')[0]}`
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return `--scenarios ${join(path, file)}: must hold a JSON object: { "description": …, "data"?: …, "overrides"?: […], "settings"?: {…} }`
      if ('name' in parsed)
        return `--scenarios ${join(path, file)}: the file's name is the scenario's (${basename(file, '.json')}); leave "name" out`
      scenarios.push({ name: basename(file, '.json'), ...parsed })
    }
    return scenarios
  }
  if (found?.isFile() && path.endsWith('.json'))
    return `--scenarios ${path}: give a folder of <name>.json files, or a module exporting a list of scenarios`
  const loaded = await importModule('scenarios', path)
  if (typeof loaded === 'string') return loaded
  const exported = loaded.default ?? loaded.scenarios
  const list = Array.isArray(exported) ? exported : exported === undefined ? undefined : [exported]
  if (!list || list.length === 0)
    return `--scenarios ${path}: export a list of scenarios as the module's default (export default [defineScenario({ name, description, … })])`
  return list
}
