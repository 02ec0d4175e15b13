import type { Argv } from 'yargs'
import yargs from 'yargs'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { Catalog } from '../resources/catalog.js'
import type { OptionName, OptionSpec } from '../sandbox/option-table.js'
import { flagName, HELP_FLAGS, optionTable } from '../sandbox/option-table.js'
import { countNameProblem, nearName } from '../sandbox/options.js'
import { shopApi } from '../shop/index.js'
import { countsOf, flagOf, integerFlag } from './flags.js'
import { check } from './check.js'
import { init } from './init.js'
import { printOpenApi } from './openapi.js'
import { packageInfo } from './package-info.js'
import { loadApi, loadResources, loadScenarios, moduleArguments } from './resources.js'
import { serve } from './serve.js'
import { USAGE_ERROR } from './exit-codes.js'
import { mcp } from './mcp.js'
import { keepStdoutForTheProtocol } from '../mcp/stdout.js'

/** The commands, as `.command()` declares them below (a test holds the two together). */
export const commandNames = ['init', 'openapi', 'mcp', 'check', 'serve'] as const

/** The table's options that are flags of `serve`, in the table's order. */
const flagOptions = (Object.entries(optionTable) as Array<[OptionName, OptionSpec]>).filter(
  ([, spec]) => spec.flag !== undefined,
)

/** The flags of `shop-sandbox mcp`: serve's data options (besides a count flag per resource). */
const mcpFlags = new Set<OptionName>([
  'seed',
  'counts',
  'scenario',
  'scenarios',
  'resources',
  'api',
])

/** Options whose flag names a file or module the CLI reads, or that it gathers itself. */
const readByTheCli = new Set<OptionName>([
  'api',
  'resources',
  'overrides',
  'scenarios',
  'counts',
  'quiet',
])

/**
 * The API and resources the command line names (`--api <module>`, `--resources <module>`,
 * repeatable) and the catalog they make, or the one line saying what is wrong.
 */
async function loadModules(argv: readonly string[]) {
  const apiModules = moduleArguments(argv, 'api')
  if (apiModules.length > 1) return `--api was given ${apiModules.length} times; give it once`
  const apiModule = apiModules[0]
  let api: ApiDefinition | undefined
  if (apiModule !== undefined) {
    const loaded = await loadApi(apiModule)
    if (typeof loaded === 'string') return loaded
    api = loaded
  }
  const resourceModules = moduleArguments(argv, 'resources')
  const resources: AnyResourceDefinition[] = []
  for (const module of resourceModules) {
    const loaded = await loadResources(module)
    if (typeof loaded === 'string') return loaded
    resources.push(...loaded)
  }
  const named = [
    ...(apiModule === undefined ? [] : [`--api ${apiModule}`]),
    ...resourceModules.map((module) => `--resources ${module}`),
  ].join(', ')
  try {
    const catalog = Catalog.of(api ?? shopApi, resources)
    // Before the flags are made: a resource named help would have had --help print the help.
    const taken = countNameProblem(catalog)
    if (taken) return `${named}: ${taken}`
    return { api, apiModule, resources, resourceModules, catalog }
  } catch (error) {
    return `${named}: ${(error as Error).message}`
  }
}

/** The flags a mistyped one is weighed against: the table's, the API's counts, the help's. */
const knownFlags = [
  ...flagOptions.map(([name]) => flagName(name)),
  ...shopApi.resources.map(({ name }) => name),
  ...Object.keys(HELP_FLAGS),
]

/** The table's on/off flags (`--strict`, `--quiet`, `--no-auth`, …), by flag name. */
const switches = new Set(
  flagOptions.filter(([, spec]) => spec.flag!.kind === 'boolean').map(([name]) => flagName(name)),
)

/**
 * An on/off flag given a value it cannot take, in one line: yargs reads any text but `true` as
 * false (`--strict=maybe` started a server without strict mode), and `--no-auth=5` as an
 * unknown flag.
 */
function switchProblem(argv: readonly string[]): string | null {
  for (const argument of argv) {
    if (argument === '--') break
    const match = /^--(no-)?([a-z][a-z0-9-]*)=(.*)$/s.exec(argument)
    if (!match || !switches.has(match[2]!)) continue
    const [, negated, name, value] = match
    if (negated) return `--no-${name} takes no value; give --no-${name}, or --${name}=false`
    if (value !== 'true' && value !== 'false')
      return `--${name} takes true or false (or nothing, for true), got '${value!.slice(0, 40)}'`
  }
  return null
}

/** Runs the `shop-sandbox` command line. */
export async function runCli(argv: string[]): Promise<void> {
  const { version } = packageInfo()
  const badSwitch = switchProblem(argv)
  if (badSwitch !== null) {
    console.error(`shop-sandbox: ${badSwitch} (run 'shop-sandbox --help' for the options)`)
    process.exitCode = USAGE_ERROR
    return
  }
  // `shop-sandbox mcp` speaks the protocol on stdout: what modules of the user's (`--api`,
  // `--resources`, `--scenarios`) log goes to stderr, from before they are loaded. The command
  // may follow flags (`--seed 7 mcp`); a flag's value spelt `mcp` only sends `serve`'s lines to
  // stderr.
  if (argv.includes('mcp')) keepStdoutForTheProtocol()
  // `--api` and `--resources` are loaded before the flags are made, so their resources get a
  // count flag each.
  const loaded = await loadModules(argv)
  if (typeof loaded === 'string') {
    console.error(`shop-sandbox: ${loaded}`)
    process.exitCode = 1
    return
  }
  const { api, apiModule, resources, resourceModules, catalog } = loaded
  /**
   * The options a command's flags give (those of `table`), with the counts, the modules and the
   * scenarios the CLI reads itself; null after printing why when one is wrong.
   */
  const optionsOf = async (
    given: Record<string, unknown>,
    table: typeof flagOptions,
  ): Promise<Record<string, unknown> | null> => {
    const options: Record<string, unknown> = {}
    for (const [name] of table) {
      if (readByTheCli.has(name) || given[name] === undefined) continue
      options[name] = given[name]
    }
    if (Array.isArray(options.allowedHosts) && options.allowedHosts.includes('all'))
      options.allowedHosts = 'all'
    let counts: Record<string, number> | undefined
    try {
      counts = countsOf(given.counts as string[] | undefined, catalog.names)
    } catch (error) {
      console.error(
        `shop-sandbox: ${(error as Error).message} (run 'shop-sandbox --help' for the options)`,
      )
      process.exitCode = USAGE_ERROR
      return null
    }
    options.counts = {
      ...Object.fromEntries(catalog.names.map((name) => [name, given[name] as number])),
      ...counts,
    }
    if (resources.length > 0) options.resources = resources
    if (api) options.api = api
    if (given.scenarios !== undefined) {
      const scenarios = await loadScenarios(String(given.scenarios))
      if (typeof scenarios === 'string') {
        console.error(`shop-sandbox: ${scenarios}`)
        process.exitCode = 1
        return null
      }
      options.scenarios = scenarios
    }
    return options
  }
  await yargs(argv)
    .scriptName('shop-sandbox')
    .command(
      'init <publicDir>',
      "Copy MSW's worker script (mockServiceWorker.js) into the folder your app serves statically",
      (command) =>
        command
          .positional('publicDir', {
            describe: 'e.g. public/ for Vite',
            type: 'string',
            demandOption: true,
          })
          .example('$0 init public', 'Vite, Create React App: public/mockServiceWorker.js'),
      (args) => init(args.publicDir),
    )
    .command(
      'openapi',
      'Print the OpenAPI 3.1 document of the API',
      (command) =>
        command
          .option('base-url', {
            describe: 'Base URL for the servers entry: /api or https://api.example.com',
            default: '',
            type: 'string',
          })
          .option('output', {
            alias: 'o',
            describe: 'Write to this file instead of stdout',
            type: 'string',
          })
          .example('$0 openapi > openapi.json', 'Save the document')
          .example(
            '$0 openapi --base-url https://api.example.com -o openapi.json',
            'For a client of the real API',
          ),
      (args) => printOpenApi(args.baseUrl, args.output),
    )
    .command(
      'mcp',
      'Serve the sandbox to a coding agent over the Model Context Protocol (stdio): its own sandbox, or a running server with --url',
      (command) =>
        countFlags(tableFlags(command, mcpFlags), catalog)
          .option('url', {
            describe:
              'A running sandbox server to act on (its API and control API), e.g. http://127.0.0.1:4010',
            type: 'string',
          })
          .example(
            '$0 mcp',
            'An MCP server with a sandbox of its own (for the agent’s client config)',
          )
          .example('$0 mcp --url http://127.0.0.1:4010', 'Act on the sandbox your app uses'),
      async (args) => {
        const url = (args as { url?: string | string[] }).url
        if (url !== undefined) {
          // With --url the running server's own options apply: a data flag would do nothing.
          const given = argv.find((word) =>
            [...mcpFlags, ...catalog.names].some(
              (name) => word === `--${flagName(name)}` || word.startsWith(`--${flagName(name)}=`),
            ),
          )
          const problem = Array.isArray(url)
            ? '--url is given more than once'
            : given
              ? `${given.split('=')[0]} is for the MCP server's own sandbox; with --url the running server's options apply`
              : null
          if (problem) {
            console.error(`shop-sandbox mcp: ${problem}`)
            process.exitCode = USAGE_ERROR
            return
          }
        }
        const options = await optionsOf(
          args as unknown as Record<string, unknown>,
          flagOptions.filter(([name]) => mcpFlags.has(name)),
        )
        if (options === null) return
        return mcp({ url: url as string | undefined, sandbox: options }, version)
      },
    )
    .command(
      'check <url>',
      `Probe a deployment of the real API and report where it differs from the contract the sandbox serves (exit 0: none, 1: drift, 2: unreachable)`,
      (command) =>
        command
          .positional('url', {
            describe: 'The API, e.g. https://staging.example.com',
            type: 'string',
            demandOption: true,
          })
          .option('token', {
            describe:
              "An admin's bearer token for the target (default: the API's fixed admin token, which only the sandbox accepts)",
            type: 'string',
          })
          .option('member-token', {
            describe: "A member's bearer token: adds the probes of what members may not do (403)",
            type: 'string',
          })
          .option('base-path', {
            describe: 'Path prefix of the resources on the target, e.g. /api',
            type: 'string',
          })
          .option('writes', {
            describe:
              'Also create, update, conflict, refuse and delete records of its own (removed after)',
            type: 'boolean',
            default: false,
          })
          .option('json', {
            describe: 'Print the report as JSON (for CI)',
            type: 'boolean',
            default: false,
          })
          .option('timeout', {
            describe: 'Milliseconds each probe may take',
            type: 'number',
            default: 10_000,
          })
          .example(
            '$0 check https://staging.example.com --token $STAGING_ADMIN_TOKEN',
            'Read-only probes; exit 1 on drift',
          )
          .example(
            '$0 check http://127.0.0.1:4010 --token sandbox-admin-token --writes --json',
            'Against the sandbox itself: no drift',
          ),
      (args) =>
        check({
          url: args.url,
          api: api ?? shopApi,
          resources,
          ...(args.token ? { token: args.token } : {}),
          ...(args.memberToken ? { memberToken: args.memberToken } : {}),
          ...(args.basePath ? { basePath: args.basePath } : {}),
          writes: args.writes,
          json: args.json,
          timeout: args.timeout,
        }),
    )
    .command(
      ['serve', '$0'],
      `Serve the ${catalog.api.title} sandbox over HTTP: ${catalog.names.join(', ')} (the default command)`,
      (command) =>
        countFlags(tableFlags(command), catalog)
          .example(
            '$0',
            `Serve on http://127.0.0.1:4010 with ${catalog.resources.map(({ name, seed }) => `${seed.count} ${name}`).join(', ')}`,
          )
          .example(
            '$0 --port 8080 --base-path /api',
            'Serve the resources under http://127.0.0.1:8080/api',
          )
          .example('$0 --users 10000 --seed 7 --quiet', 'Bigger, different data, no request log')
          .example('$0 --delay 100-400 --error-rate 0.05', 'A slow, flaky API')
          .example('$0 --data ./sandbox-data.json', 'Keep changes across restarts')
          .example(
            '$0 --resources ./my-resources.mjs --counts categories=40',
            'Serve resources of your own beside the shop’s',
          ),
      async (args) => {
        const options = await optionsOf(args as unknown as Record<string, unknown>, flagOptions)
        if (options === null) return
        const given = args as unknown as Record<string, unknown>
        return serve(
          {
            ...options,
            quiet: given.quiet as boolean,
            ...(given.overrides ? { overridesFile: String(given.overrides) } : {}),
            modules: { api: apiModule, resources: resourceModules },
          },
          version,
        )
      },
    )
    .epilogue('Docs: the README of shop-sandbox, or GET /docs on a running sandbox.')
    .strict()
    .version(version)
    .alias('help', HELP_FLAGS.help)
    .alias('version', HELP_FLAGS.version)
    // yargs lays out the whole help on every run, for a help it may print later (~100 ms at each
    // start, wrapping); this command line prints it only when asked, so it is wrapped only then.
    .wrap(asksForHelp(argv) ? Math.min(110, process.stdout.columns ?? 110) : null)
    .fail((message, error) => {
      if (error && !message) throw error
      console.error(
        `shop-sandbox: ${inWords(message ?? error?.message ?? '')} (run 'shop-sandbox --help' for the options)`,
      )
      process.exit(USAGE_ERROR)
    })
    .parseAsync()
}

/** yargs' own messages, said as the sandbox's are. */
function inWords(message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message)
  if (unknown) {
    const names = unknown[1]!.split(', ')
    const word = names.find((name) => process.argv.slice(2).includes(name))
    if (word !== undefined) {
      // `shop-sandbox serv`: the first word a mistyped command, as git and npm suggest it.
      const first = process.argv.slice(2).find((argument) => !argument.startsWith('-'))
      const near = first === word ? nearName(word, commandNames) : null
      return near
        ? `'${word}' is not a command; did you mean '${near}'?`
        : `'${word}' is not a command or a flag's value`
    }
    const dashed = (name: string) => (name.length > 1 ? `--${name}` : `-${name}`)
    const flags = names.map(dashed)
    const near = names.length === 1 ? nearName(names[0]!, knownFlags) : null
    if (near) return `${flags[0]} is not an option; did you mean ${dashed(near)}?`
    // `--categories 40` before its resource is loaded: the count flags come with --resources.
    const plural = names.some((name) => /^[a-z][a-z-]*s$/.test(name))
    return `${flags.join(', ')} ${flags.length > 1 ? 'are not options' : 'is not an option'}${plural ? ' (a count of your own resource? load it first with --resources <module>)' : ''}`
  }
  const missing = /^Not enough arguments following: (.+)$/.exec(message)
  if (missing) return `--${missing[1]} needs a value`
  // The one command with a positional argument: `init` without its folder.
  if (/^Not enough non-option arguments/.test(message) && process.argv.includes('init'))
    return "init needs the folder your app serves statically, e.g. 'shop-sandbox init public' (Vite)"
  return message
}

/** Every flag of the option table (or those `only` names), as the table declares it. */
function tableFlags<T>(command: Argv<T>, only?: ReadonlySet<OptionName>): Argv<T> {
  const chosen = only ? flagOptions.filter(([name]) => only.has(name)) : flagOptions
  return chosen.reduce((flags, [name, spec]) => {
    const flag = flagOf(name, spec)
    // `$PORT` sets the port's default, as many hosts expect.
    if (name === 'port' && process.env.PORT !== undefined) flag.default = process.env.PORT
    return flags.option(flagName(name), flag)
  }, command)
}

/** `--users`, `--products`, … : one count flag per resource, bounds and default from its definition. */
function countFlags<T>(command: Argv<T>, catalog: Catalog): Argv<T> {
  return catalog.resources.reduce(
    (flags, { name, seed }) =>
      flags.option(name, {
        describe: `Number of ${name}${seed.min > 0 ? ` (at least ${seed.min})` : ''}`,
        default: seed.count,
        coerce: integerFlag(name, seed.min, seed.max),
      }),
    command,
  )
}

/** Whether a command line asks for the help (`--help`, `-h`, or `-h` among short flags). */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.some(
    (arg) => arg === '--help' || (/^-[^-]/.test(arg) && arg.includes(HELP_FLAGS.help)),
  )
}
