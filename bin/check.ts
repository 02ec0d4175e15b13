import { checkDrift, reportJson, reportLines } from '../check/drift.js'
import type { ApiDefinition } from '../resources/api.js'
import type { AnyResourceDefinition } from '../resources/define.js'
import { createApiSandbox } from '../sandbox/create-sandbox.js'
import { optionTable } from '../sandbox/option-table.js'
import { clip } from '../contract/params.js'

export interface CheckCommand {
  url: string
  api: ApiDefinition
  resources: readonly AnyResourceDefinition[]
  token?: string
  memberToken?: string
  basePath?: string
  writes: boolean
  json: boolean
  timeout?: number
}

/** Exit codes of `shop-sandbox check` (CONTRACT C4). */
export const CHECK_EXIT = { clean: 0, drift: 1, unreachable: 2 } as const

/**
 * `shop-sandbox check <url>`: probes a deployment of the real API against the contract the
 * sandbox serves (the same API definition, `--api`/`--resources` included) and prints one line
 * per probe or difference, or the report as JSON; exit 0 clean, 1 drift, 2 unreachable.
 */
export async function check(command: CheckCommand): Promise<void> {
  // The same rules as the server's --proxy target and --base-path (sandbox/option-table.ts).
  // --timeout: the bounds of the server's --proxy-timeout, each probe being one such exchange.
  const url = optionTable.proxy.schema().safeParse(command.url)
  const basePath = optionTable.basePath.schema().safeParse(command.basePath ?? '')
  const timeout = optionTable.proxyTimeout.schema().safeParse(command.timeout ?? 10_000)
  if (!url.success || !basePath.success || !timeout.success) {
    const problem = !url.success
      ? // A password in the URL is not echoed.
        `the target ${url.error.issues[0]!.message}, got '${clip(command.url.replace(/\/\/[^/]*@/, '//***@'), 200)}'`
      : !basePath.success
        ? `--base-path ${basePath.error.issues[0]!.message}, got '${clip(command.basePath ?? '')}'`
        : `--timeout ${timeout.error!.issues[0]!.message}, got ${String(command.timeout)}`
    console.error(`shop-sandbox check: ${problem}`)
    process.exitCode = CHECK_EXIT.unreachable
    return
  }
  const oracle = createApiSandbox({ api: command.api, resources: command.resources })
  const report = await checkDrift(oracle.options.catalog, oracle, {
    url: `${url.data}${basePath.data}`,
    ...(command.token ? { token: command.token } : {}),
    ...(command.memberToken ? { memberToken: command.memberToken } : {}),
    writes: command.writes,
    timeoutMs: timeout.data,
  })
  if (command.json) console.log(reportJson(report))
  else
    for (const line of reportLines(report)) (report.reachable ? console.log : console.error)(line)
  process.exitCode = !report.reachable
    ? CHECK_EXIT.unreachable
    : report.summary.drift > 0
      ? CHECK_EXIT.drift
      : CHECK_EXIT.clean
}
