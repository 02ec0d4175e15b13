import cliProgress from 'cli-progress'
import type { ProgressReporter } from '../db/progress.js'

/** How long start-up may take before a progress bar appears (SHOP_SANDBOX_PROGRESS_AFTER_MS overrides it). */
const QUIET_MS = Number(process.env.SHOP_SANDBOX_PROGRESS_AFTER_MS ?? 1000)

const labels = {
  generating: 'generating data',
  indexing: 'indexing',
  validating: 'checking data file',
}

/**
 * A progress bar on stderr for slow starts (seeding or loading a big data set): only on a
 * terminal, and only once the work has taken about a second. Call `stop()` when done.
 */
export function startupProgress(stream: NodeJS.WriteStream = process.stderr): {
  report: ProgressReporter
  stop(): void
} {
  const started = performance.now()
  let bar: cliProgress.SingleBar | undefined
  let phase: string | undefined
  const report: ProgressReporter = (current, done, total) => {
    if (!stream.isTTY || performance.now() - started < QUIET_MS) return
    if (phase !== current) {
      bar?.stop()
      phase = current
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `  ${labels[current].padEnd(18)} {bar} {percentage}% · {value}/{total}`,
          clearOnComplete: true,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(total, done)
    }
    bar?.update(done)
  }
  return { report, stop: () => bar?.stop() }
}
