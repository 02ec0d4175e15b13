import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LoadResult } from './harness.js'
import { load, startServer, stop } from './harness.js'
import { freePort, startNginx, waitFor } from './nginx.js'
import type { Scenario } from './scenarios.js'

/** By id, spread over 8 named sandboxes: what several CI workers sharing a sandbox send. */
export const spreadScenario: Scenario = {
  name: 'by id over 8 sandboxes',
  method: 'GET',
  path: '/users/123',
  sandboxes: 8,
}

/**
 * One process against two behind nginx (docs/guide/scale-out.md), loaded one after the other
 * with the same requests, three times each; the median of the three ratios (two / one).
 */
export async function scaleOut(
  users: number,
  seconds: number,
  connections: number,
): Promise<{ one: LoadResult; two: LoadResult; ratio: number }> {
  const single = await startServer('sandbox', [String(users), 'fast'])
  const pair = [
    await startServer('sandbox', [String(users), 'fast']),
    await startServer('sandbox', [String(users), 'fast']),
  ]
  const folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-bench-nginx-'))
  const listen = await freePort()
  const nginx = await startNginx(
    folder,
    listen,
    pair.map((server) => Number(new URL(server.info.url).port)),
  )
  const front = `http://127.0.0.1:${listen}`
  try {
    await waitFor(`${front}/__sandbox`)
    await load(single.info.url, spreadScenario, 2, connections)
    await load(front, spreadScenario, 2, connections)
    const runs: Array<{ one: LoadResult; two: LoadResult }> = []
    for (let round = 0; round < 3; round++) {
      runs.push({
        one: await load(single.info.url, spreadScenario, seconds, connections),
        two: await load(front, spreadScenario, seconds, connections),
      })
    }
    runs.sort((a, b) => a.two.rps / a.one.rps - b.two.rps / b.one.rps)
    const median = runs[1]!
    return { ...median, ratio: median.two.rps / median.one.rps }
  } finally {
    nginx.kill('SIGTERM')
    await Promise.all([single, ...pair].map((server) => stop(server.child)))
    await rm(folder, { recursive: true, force: true })
  }
}
