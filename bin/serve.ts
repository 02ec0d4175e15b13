import { stat } from 'node:fs/promises'
import type { OverrideInput } from '../state/overrides/index.js'
import { parseOverride } from '../state/overrides/index.js'
import { DataFileError } from '../server/data-file/index.js'
import type { SandboxServerOptions } from '../server/server.js'
import { heapDefaults } from '../state/limits.js'
import { createSandboxServer } from '../node/create-server.js'
import { NotAFile, readRegularFile } from '../server/regular-file.js'
import { startupExitCode } from './exit-codes.js'
import { startupProgress } from './progress.js'

const loopback = new Set(['127.0.0.1', 'localhost', '::1'])

/** Starts the server, prints where it is and how to call it, and stops cleanly on SIGINT/SIGTERM. */
export async function serve(
  options: SandboxServerOptions & {
    quiet: boolean
    overridesFile?: string
    /** The modules `--api` and `--resources` loaded, for the banner. */
    modules?: { api: string | undefined; resources: readonly string[] }
  },
  version: string,
): Promise<void> {
  const { quiet, overridesFile, modules, ...serverOptions } = options
  if (overridesFile !== undefined) {
    const loaded = await readOverrides(
      overridesFile,
      serverOptions.overridesBytes ?? heapDefaults('server').overridesBytes,
    )
    if (typeof loaded === 'string') {
      console.error(`shop-sandbox: ${loaded}`)
      process.exitCode = 1
      return
    }
    serverOptions.overrides = loaded
  }
  let server: Awaited<ReturnType<typeof createSandboxServer>>
  const progress = startupProgress()
  try {
    server = await createSandboxServer({
      ...serverOptions,
      onProgress: progress.report,
      ...(quiet ? {} : { log: (line: string) => console.log(line) }),
    })
    progress.stop()
  } catch (error) {
    progress.stop()
    const message = startupMessage(error, options)
    // A problem with one of the file's overrides names the file and the entry.
    console.error(
      `shop-sandbox: ${overridesFile === undefined ? message : message.replace(/^Invalid override overrides\[(\d+)\]: /, `--overrides ${overridesFile}, entry [$1]: `)}`,
    )
    process.exitCode = startupExitCode(error)
    return
  }
  if (!loopback.has(options.host ?? '127.0.0.1')) {
    console.warn(
      `shop-sandbox: warning: listening on ${options.host}, so other machines can reach the sandbox and its fixed tokens`,
    )
  }
  console.log(banner(server, version, options, modules))
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C: exit at once, but save synchronously first.
      const saved = server.saveNow()
      if (!saved)
        console.error(
          `shop-sandbox: exiting before ${options.data} was brought up to date; its acknowledged changes are kept in the log beside it and applied at the next start`,
        )
      process.exit(saved ? 130 : 1)
    }
    stopping = true
    if (!quiet) console.log(`shop-sandbox: ${signal}, shutting down`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`shop-sandbox: ${(error as Error).message}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

/** What a started server prints: where it is, its data, its tokens, and how to call it. */
function banner(
  server: Awaited<ReturnType<typeof createSandboxServer>>,
  version: string,
  options: SandboxServerOptions,
  modules: { api: string | undefined; resources: readonly string[] } | undefined,
): string {
  const { data, proxy, record } = options
  const { catalog, seed, control } = server.sandbox.options
  const counts = Object.entries(server.sandbox.db.counts())
    .map(([name, count]) => `${count} ${count === 1 ? catalog.get(name).singular : name}`)
    .join(', ')
  const scenario = server.sandbox.scenario
  const source =
    server.dataFile === 'loaded'
      ? `from ${data}`
      : scenario === 'default'
        ? `seed ${seed}`
        : `scenario ${scenario}`
  const { tokens, login, password } = catalog.accounts
  const width = 14
  const line = (label: string, text: string) => `  ${label.padEnd(width)}${text}`
  const first = tokens[0]
  return [
    `shop-sandbox ${version} listening on ${server.url} (${catalog.api.title})`,
    line('data:', `${counts} (${source})`),
    line(
      'scenario:',
      `${server.sandbox.scenario} (of ${server.sandbox.scenarios.map(({ name }) => name).join(', ')}: PUT /__sandbox/scenario)`,
    ),
    ...(modules?.api ? [line('api:', `${catalog.api.title} from ${modules.api}`)] : []),
    ...(modules && modules.resources.length > 0
      ? [line('resources:', `${catalog.added.join(', ')} from ${modules.resources.join(', ')}`)]
      : []),
    ...tokens.map(({ token, description }, index) =>
      line(index === 0 ? 'tokens:' : '', `${token}${description ? `  (${description})` : ''}`),
    ),
    line('sign in:', `POST ${server.url}/sessions {"${login}": …, "password": "${password}"}`),
    ...(first
      ? [
          line(
            'try:',
            `curl -H 'Authorization: Bearer ${first.token}' ${server.url}/${catalog.accounts.resource.name}`,
          ),
        ]
      : []),
    ...(control ? [line('console:', `${new URL(server.url).origin}/__sandbox/ui`)] : []),
    ...(proxy
      ? [
          line(
            'proxy:',
            `what the API lacks goes to ${proxy}${record ? `, recorded in ${record}` : ''}`,
          ),
        ]
      : []),
  ].join('\n')
}

/** One line saying what stopped the start and what to do about it (no stack trace). */
export function startupMessage(error: unknown, options: SandboxServerOptions): string {
  if (error instanceof DataFileError || error instanceof RangeError || error instanceof TypeError)
    return error.message
  const { code, message, path, syscall } = error as NodeJS.ErrnoException
  // The port tried: the error's own (the default one when no --port was given).
  const port = (error as { port?: number }).port ?? options.port
  const host = options.host ?? '127.0.0.1'
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is in use; pass --port 0 for a free one, or another port`
    case 'EACCES':
      if (syscall === 'listen')
        return `no permission to listen on port ${port}; pick a port above 1023`
      return `no permission to use ${path ?? options.data}; pick another --data file`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on --host ${host}: no such host; use 127.0.0.1 or an address of this machine`
    case 'EADDRNOTAVAIL':
      return `cannot listen on --host ${host}: not an address of this machine; use 127.0.0.1 or 0.0.0.0`
    case 'ENOENT':
      return `cannot create the data file ${options.data}: its folder does not exist; create it or pick another --data path`
    case 'ENOTDIR':
      return `cannot create the data file ${options.data}: a part of its path is a file, not a folder`
    case 'EISDIR':
      return `--data ${options.data} is a folder; give a file path such as ${options.data}/sandbox.json`
    case 'ENOTFILE':
      return `--data ${options.data} is not a regular file (a FIFO or a device is never read); give a JSON file`
    case 'EROFS':
      return `cannot write the data file ${options.data}: the file system is read-only`
    default:
      return `could not start: ${String(message ?? error).split('\n')[0]}`
  }
}

/**
 * The overrides of `--overrides <file>`: a JSON array, or a one-line problem. Only a regular
 * file is read (a FIFO would never end, `/dev/zero` never stop), and only one that could fit
 * `--overrides-bytes` (its JSON text, indented or not, within four times that).
 */
async function readOverrides(file: string, bytes: number): Promise<OverrideInput[] | string> {
  let text: string
  try {
    const found = await stat(file)
    if (found.size > 4 * bytes)
      return `--overrides ${file} holds ${found.size} bytes: more than its overrides could take (--overrides-bytes ${bytes})`
    text = await readRegularFile(file)
  } catch (error) {
    if (error instanceof NotAFile)
      return `--overrides ${file} is not a file (a JSON array of overrides is read from a regular file)`
    return `cannot read --overrides ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`
  }
  let parsed: unknown
  try {
    // An editor's byte order mark is no part of the JSON.
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    return `--overrides ${file} is not valid JSON: ${(error as Error).message.split('\n')[0]}`
  }
  if (!Array.isArray(parsed)) return `--overrides ${file} must hold a JSON array of overrides`
  // Each entry is checked here, so a problem names the file and the entry (0-based, as in the array).
  for (const [index, entry] of parsed.entries()) {
    try {
      parseOverride(entry, `--overrides ${file}, entry [${index}]`)
    } catch (error) {
      return (error as Error).message
    }
  }
  return parsed as OverrideInput[]
}
