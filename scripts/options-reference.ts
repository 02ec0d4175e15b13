/**
 * The options reference (docs/reference/options.md), made from the one options table
 * (sandbox/option-table.ts) and the Shop API's resources: `npm run docs:options` writes it, and
 * a test fails when the page and the table disagree.
 *
 *   npx tsx scripts/options-reference.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import bytes from 'bytes'
import type { OptionName, OptionScope, OptionSpec } from '../sandbox/option-table.js'
import { flagName, optionTable } from '../sandbox/option-table.js'
import { shopCatalog } from '../shop/index.js'

export const optionsPage = fileURLToPath(new URL('../docs/reference/options.md', import.meta.url))

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** An option's default as the docs show it. */
function shownDefault(spec: OptionSpec): string {
  const text = spec.flag?.defaultText ?? spec.defaultText
  if (text) return text
  if (spec.default === undefined) return 'none'
  if (spec.flag?.kind === 'bytes') return `\`${bytes.format(spec.default as number)}\``
  return `\`${JSON.stringify(spec.default)}\``
}

/** `--port <n>`, `-p`: the flag as typed, or a dash when only code can give it. */
function shownFlag(name: string, spec: OptionSpec): string {
  const { flag } = spec
  if (!flag) return '—'
  const placeholder: Record<string, string> = {
    integer: '<n>',
    number: '<n>',
    bytes: '<size>',
    text: '<text>',
    path: '<file>',
    list: '<value>',
  }
  if (flag.kind === 'boolean')
    // A flag on by default is turned off: `--no-auth`.
    return spec.default === true
      ? `\`--no-${flagName(name)}\``
      : `\`--${flagName(name)}\`${flag.alias ? `, \`-${flag.alias}\`` : ''}`
  const value =
    flag.value ?? (flag.kind === 'choice' ? flag.choices!.join('|') : placeholder[flag.kind])
  const alias = flag.alias ? `, \`-${flag.alias}\`` : ''
  const repeat = flag.kind === 'list' ? ' (repeatable)' : ''
  return `\`--${flagName(name)} ${value}\`${alias}${repeat}`
}

function table(scope: OptionScope): string[] {
  const rows = (Object.entries(optionTable) as Array<[OptionName, OptionSpec]>)
    .filter(([, spec]) => spec.scope === scope)
    .map(
      ([name, spec]) =>
        `| ${scope === 'cli' ? '—' : `\`${name}\``} | ${cell(shownFlag(name, spec))} | ${cell(shownDefault(spec))} | ${cell(spec.help)} |`,
    )
  return ['| option | flag | default | what |', '| --- | --- | --- | --- |', ...rows]
}

/** The generated part of the page, between its markers. */
export function optionsReference(): string {
  const counts = shopCatalog.resources.map(
    ({ name, seed }) =>
      `| \`${name}\` | \`--${name} <n>\` | \`${seed.count}\` | ${seed.min > 0 ? `at least ${seed.min}, ` : ''}at most ${seed.max.toLocaleString('en')} ${name}${seed.needs ? ` (needs ${seed.needs})` : ''} |`,
  )
  return [
    '<!-- options:start (npm run docs:options writes this part from sandbox/option-table.ts) -->',
    '',
    '## Every sandbox',
    '',
    '`createSandbox`, `setupSandbox`, `startSandbox`, `createSandboxServer` and `shop-sandbox serve`.',
    '',
    ...table('sandbox'),
    '',
    'Counts of the Shop API (a resource of yours gets its own, `--<name> <n>`, once `--resources` loads it):',
    '',
    '| option | flag | default | what |',
    '| --- | --- | --- | --- |',
    ...counts,
    '',
    "Counts past what the heap can hold are refused before any record is generated: a data set of 10,000 records or more is weighed (each resource's records by a sample of 200, as JSON-shaped values) and refused, naming the counts, when it would take more than three fifths of the heap's free room (`1000000 users, 1000000 products and 1000000 orders would take ~2150 MB …` under a 512 MB heap). A scenario's `data.counts` are weighed when the sandbox is made, and again when it is first used (429 / 42900 then, the sandbox left as it was). Give Node more heap (`node --max-old-space-size=4096`) for more.",
    '',
    '## The Node server',
    '',
    '`createSandboxServer` and `shop-sandbox serve`.',
    '',
    ...table('server'),
    '',
    '## The command line only',
    '',
    ...table('cli'),
    '',
    '<!-- options:end -->',
  ].join('\n')
}

/** The page with its generated part replaced. */
export function withOptionsReference(page: string): string {
  const pattern = /<!-- options:start[\s\S]*?<!-- options:end -->/
  if (!pattern.test(page)) throw new Error(`${optionsPage} has no options block`)
  return page.replace(pattern, () => optionsReference())
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { format, resolveConfig } = await import('prettier')
  const page = withOptionsReference(readFileSync(optionsPage, 'utf8'))
  const config = await resolveConfig(optionsPage)
  writeFileSync(optionsPage, await format(page, { ...config, filepath: optionsPage }))
  console.log(`${optionsPage} written`)
}
