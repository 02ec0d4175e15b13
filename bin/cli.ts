import type { Argv } from 'yargs'
import yargs from 'yargs'
import { DEFAULT_SEED, seedLimits } from '../resources/seed.js'
import { shopCatalog } from '../shop/index.js'
import { optionDefaults, optionLimits } from '../sandbox/options.js'
import { defaultRuntimeConfig } from '../state/runtime-config.js'
import bytes from 'bytes'
import { defaultLimits, limitBounds } from '../state/limits.js'
import { basePathFlag, bytesFlag, delayFlag, integerFlag, rateFlag } from './flags.js'
import { init } from './init.js'
import { printOpenApi } from './openapi.js'
import { packageInfo } from './package-info.js'
import { serve } from './serve.js'

/** Exit code for a bad command line. */
export const USAGE_ERROR = 2

/** Runs the `shop-sandbox` command line. */
export async function runCli(argv: string[]): Promise<void> {
  const { version } = packageInfo()
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
      ['serve', '$0'],
      `Serve the Shop API sandbox over HTTP: ${shopCatalog.names.join(', ')} (the default command)`,
      (command) =>
        countFlags(command)
          .option('port', {
            alias: 'p',
            describe: 'Port to listen on (0: any free port)',
            default: process.env.PORT ?? 4010,
            defaultDescription: '$PORT or 4010',
            coerce: integerFlag('port', 0, 65_535),
          })
          .option('host', { describe: 'Address to bind', default: '127.0.0.1', type: 'string' })
          .option('seed', {
            describe: 'Seed of the generated data',
            default: DEFAULT_SEED,
            coerce: integerFlag('seed', ...seedLimits),
          })
          .option('base-path', {
            describe: 'Path prefix of the resources, e.g. /api',
            default: '',
            coerce: basePathFlag,
          })
          .option('token-ttl', {
            describe: 'Lifetime of session tokens, in seconds',
            default: optionDefaults.tokenTtl,
            coerce: integerFlag('token-ttl', ...optionLimits.tokenTtl),
          })
          .option('delay', {
            describe: 'Latency of every response: <ms> or <min>-<max>',
            default: '0',
            coerce: delayFlag,
          })
          .option('error-rate', {
            describe: 'Share of requests answered 500/503 (0 to 1)',
            default: defaultRuntimeConfig.errorRate,
            coerce: rateFlag('error-rate'),
          })
          .option('drop-rate', {
            describe: 'Share of requests whose connection is dropped (0 to 1)',
            default: defaultRuntimeConfig.dropRate,
            coerce: rateFlag('drop-rate'),
          })
          .option('strict', {
            describe: 'Unknown query parameters and body fields are errors',
            default: defaultRuntimeConfig.strict,
            type: 'boolean',
          })
          .option('auth', {
            describe: 'Require bearer tokens (--no-auth: no token acts as the admin)',
            default: defaultRuntimeConfig.auth,
            type: 'boolean',
          })
          .option('control', {
            describe: 'Serve the control API under /__sandbox',
            default: optionDefaults.control,
            type: 'boolean',
          })
          .option('max-sandboxes', {
            describe: 'Live X-Sandbox-Id sandboxes kept at most (least recently used dropped)',
            default: optionDefaults.maxSandboxes,
            coerce: integerFlag('max-sandboxes', ...optionLimits.maxSandboxes),
          })
          .option('journal-size', {
            describe: "Requests kept in each sandbox's journal (0: no journal)",
            default: defaultLimits.journal.size,
            coerce: integerFlag('journal-size', ...limitBounds.journalSize),
          })
          .option('journal-body-bytes', {
            describe:
              'Size of a request or response body the journal keeps, redacted and cut past it (0: none)',
            default: bytes.format(defaultLimits.journal.bodyBytes),
            coerce: bytesFlag('journal-body-bytes', ...limitBounds.journalBodyBytes),
          })
          .option('journal-bytes', {
            describe:
              "Size one sandbox's journal may take, bodies counted (oldest entries dropped)",
            default: bytes.format(defaultLimits.journal.bytes),
            coerce: bytesFlag('journal-bytes', ...limitBounds.journalBytes),
          })
          .option('max-sessions', {
            describe: 'Live session tokens per sandbox (POST /sessions gets 429 past it)',
            default: defaultLimits.maxSessions,
            coerce: integerFlag('max-sessions', ...limitBounds.maxSessions),
          })
          .option('sandboxes-memory', {
            describe:
              'Memory all X-Sandbox-Id sandboxes may hold together (least recently used dropped; default: a quarter of the heap, at most 512mb)',
            type: 'string',
            coerce: bytesFlag('sandboxes-memory', ...limitBounds.sandboxesMemory),
          })
          .option('max-document-bytes', {
            describe: 'Largest PUT /__sandbox/db body',
            default: bytes.format(defaultLimits.maxDocumentBytes),
            coerce: bytesFlag('max-document-bytes', ...limitBounds.maxDocumentBytes),
          })
          .option('max-overrides', {
            describe: 'Overrides one sandbox keeps at most (429 past it)',
            default: defaultLimits.overrides.count,
            coerce: integerFlag('max-overrides', ...limitBounds.maxOverrides),
          })
          .option('overrides-bytes', {
            describe:
              "Memory one sandbox's overrides may take (413 for one larger, 429 when full; default: a sixty-fourth of the heap, at most 32mb)",
            type: 'string',
            coerce: bytesFlag('overrides-bytes', ...limitBounds.overridesBytes),
          })
          .option('overrides', {
            describe:
              'Start with the overrides in this JSON file (an array, as POST /__sandbox/overrides takes)',
            type: 'string',
          })
          .option('data', {
            describe:
              'Keep the data in this JSON file (loaded at start; a write is answered once it is on disk)',
            type: 'string',
          })
          .option('data-format', {
            describe: 'pretty: 2-space indents, as json-server writes db.json; compact: one line',
            choices: ['pretty', 'compact'] as const,
            default: 'pretty' as const,
          })
          .option('cors-origin', {
            describe:
              "Origin allowed to call from a browser besides loopback ones (repeatable; '*': any)",
            type: 'string',
            array: true,
          })
          .option('allowed-hosts', {
            describe:
              'Host name accepted besides loopback and the bound address (repeatable; all: no check)',
            type: 'string',
            array: true,
            coerce: (hosts: string[]) => {
              if (hosts.length === 0 || hosts.some((host) => host.trim() === ''))
                throw new Error('--allowed-hosts needs a host name (or all)')
              return hosts
            },
          })
          .option('transport', {
            describe:
              'fast: the handlers straight from Node; msw: through MSW itself (getResponse; slower)',
            choices: ['fast', 'msw'] as const,
            default: 'fast' as const,
          })
          .option('quiet', {
            alias: 'q',
            describe: 'No request log',
            default: false,
            type: 'boolean',
          })
          .example(
            '$0',
            `Serve on http://127.0.0.1:4010 with ${shopCatalog.resources.map(({ name, seed }) => `${seed.count} ${name}`).join(', ')}`,
          )
          .example(
            '$0 --port 8080 --base-path /api',
            'Serve the resources under http://127.0.0.1:8080/api',
          )
          .example('$0 --users 10000 --seed 7 --quiet', 'Bigger, different data, no request log')
          .example('$0 --delay 100-400 --error-rate 0.05', 'A slow, flaky API')
          .example('$0 --data ./sandbox-data.json', 'Keep changes across restarts'),
      (args) =>
        serve(
          {
            port: args.port,
            host: args.host,
            seed: args.seed,
            counts: Object.fromEntries(
              shopCatalog.names.map((name) => [
                name,
                (args as Record<string, unknown>)[name] as number,
              ]),
            ),
            basePath: args.basePath,
            tokenTtl: args.tokenTtl,
            delay: args.delay,
            errorRate: args.errorRate,
            dropRate: args.dropRate,
            strict: args.strict,
            auth: args.auth,
            control: args.control,
            maxSandboxes: args.maxSandboxes,
            journalSize: args.journalSize,
            journalBodyBytes: args.journalBodyBytes,
            journalBytes: args.journalBytes,
            maxSessions: args.maxSessions,
            maxDocumentBytes: args.maxDocumentBytes,
            maxOverrides: args.maxOverrides,
            ...(args.overridesBytes === undefined ? {} : { overridesBytes: args.overridesBytes }),
            ...(args.sandboxesMemory === undefined
              ? {}
              : { sandboxesMemory: args.sandboxesMemory }),
            ...(args.data ? { data: args.data, dataFormat: args.dataFormat } : {}),
            ...(args.overrides ? { overridesFile: args.overrides } : {}),
            ...(args.corsOrigin ? { corsOrigin: args.corsOrigin } : {}),
            ...(args.allowedHosts
              ? { allowedHosts: args.allowedHosts.includes('all') ? 'all' : args.allowedHosts }
              : {}),
            transport: args.transport,
            quiet: args.quiet,
          },
          version,
        ),
    )
    .epilogue('Docs: the README of shop-sandbox, or GET /docs on a running sandbox.')
    .strict()
    .version(version)
    .alias('help', 'h')
    .alias('version', 'v')
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      if (error && !message) throw error
      console.error(
        `shop-sandbox: ${message ?? error?.message} (run 'shop-sandbox --help' for the options)`,
      )
      process.exit(USAGE_ERROR)
    })
    .parseAsync()
}

/** `--users`, `--products`, … : one count flag per resource, bounds and default from its definition. */
function countFlags<T>(command: Argv<T>): Argv<T> {
  return shopCatalog.resources.reduce(
    (flags, { name, seed }) =>
      flags.option(name, {
        describe: `Number of ${name}${seed.min > 0 ? ` (at least ${seed.min})` : ''}`,
        default: seed.count,
        coerce: integerFlag(name, seed.min, seed.max),
      }),
    command,
  )
}
