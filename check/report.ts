/**
 * CONTRACT C4's drift check: probes a deployment of the real API and reports where it differs
 * from the contract the sandbox serves. Every probe and expectation comes from the same catalog
 * the sandbox is made of (routes, schemas, query rules, permissions, codes): what does not
 * depend on data (a bad query, a missing id, no token, a wrong method) is asked of an
 * in-process sandbox of that catalog too (the oracle) and the two answers compared; what does
 * (a page, a sort, a filter) is checked against the rule on the target's own records. So the
 * check cannot disagree with the sandbox: run against the sandbox, it finds no drift.
 */

export interface CheckOptions {
  /** The API's base URL (with its base path), e.g. `https://staging.example.com/api`. */
  url: string
  /**
   * A bearer token of an admin account of the target (default: the API's first fixed admin
   * token, what the sandbox itself accepts; a real API wants its own).
   */
  token?: string
  /** A member's token: adds the probes of what members may not do (403). */
  memberToken?: string
  /** Also create, update, conflict, refuse and delete records of its own (removed after). */
  writes?: boolean
  /** Milliseconds a probe may take (default 10 s). */
  timeoutMs?: number
}

export interface ProbeResult {
  /** `GET /users?sort=name&order=asc`, and what it checks. */
  probe: string
  ok: boolean
  /** What differs, one entry per difference. */
  drift: string[]
}

export interface CheckReport {
  target: string
  /** False when the target could not be reached (exit 2); then `error` says why. */
  reachable: boolean
  error?: string
  probes: ProbeResult[]
  summary: { probes: number; ok: number; drift: number }
}

export interface Reply {
  status: number
  headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- envelopes of any resource
  body: any
  text: string
  /** The `X-Request-Id` the check sent, which the answer must echo (CONTRACT B3). */
  requestId?: string
}

export function summary(probes: readonly ProbeResult[]): CheckReport['summary'] {
  const ok = probes.filter((probe) => probe.ok).length
  return { probes: probes.length, ok, drift: probes.length - ok }
}

/**
 * Text from the target as one line without control characters (escaped as `\u001b`): what a
 * target answers must not start lines of its own in the report, nor reach the terminal.
 */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, escapeEach)
}

/** The bytes of `0`-`9` and `a`-`f`, by value. */
const HEX = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0))
const ascii = new TextDecoder()

/**
 * Each character of a run (control characters, C1, U+2028-9) as `\u` and four hex digits,
 * written as bytes: a megabyte of C1 characters a target sent is six megabytes of escapes, and
 * a string per character took three times as long.
 */
function escapeEach(run: string): string {
  const out = new Uint8Array(run.length * 6)
  for (let index = 0, at = 0; index < run.length; index++, at += 6) {
    const code = run.charCodeAt(index)
    out[at] = 0x5c // \
    out[at + 1] = 0x75 // u
    out[at + 2] = HEX[code >> 12]!
    out[at + 3] = HEX[(code >> 8) & 15]!
    out[at + 4] = HEX[(code >> 4) & 15]!
    out[at + 5] = HEX[code & 15]!
  }
  return ascii.decode(out)
}

/**
 * The report as JSON text with every control character escaped, C1 and the line separators
 * too (JSON.stringify leaves U+0080-U+009F, U+2028 and U+2029 raw): a terminal or a log reading
 * `--json` sees no escape sequence a target sent.
 */
export function reportJson(report: CheckReport): string {
  return JSON.stringify(report, null, 2).replace(/[\u007f-\u009f\u2028\u2029]+/g, escapeEach)
}

/** The report as lines: one per probe that holds, one per difference, then a summary. */
export function reportLines(report: CheckReport): string[] {
  if (!report.reachable) return [`shop-sandbox check: ${report.error}`]
  const lines: string[] = []
  for (const probe of report.probes) {
    if (probe.ok) lines.push(`ok:    ${oneLine(probe.probe)}`)
    else
      for (const what of probe.drift) lines.push(`drift: ${oneLine(probe.probe)}: ${oneLine(what)}`)
  }
  const { probes, ok, drift } = report.summary
  lines.push(
    drift === 0
      ? `${probes} probes against ${report.target}: no drift`
      : `${probes} probes against ${report.target}: ${ok} ok, ${drift} with drift`,
  )
  return lines
}
