/**
 * What durable acknowledgements cost (issue 30): `POST /users` against a server with `--data`
 * (each 2xx only once the change is fsynced) and the same server without, side by side, at
 * 50 and 10,000 users; and what pretty-printing the data file costs at 100,000 users.
 *
 *   npx tsx bench/durability.ts        (alone; `npm run bench` includes it)
 */
import { pathToFileURL } from 'node:url'
import { seedData } from '../index.js'
import type { LoadResult } from './harness.js'
import { buildServers, medianPair, sideBySide, startServer } from './harness.js'
import { countsFor, scenarios } from './scenarios.js'

export interface DurabilityResult {
  posts: Array<{ users: number; without: LoadResult; with: LoadResult; ratio: number }>
  serialization: {
    users: number
    prettyMs: number
    compactMs: number
    prettyMb: number
    compactMb: number
  }
}

export async function durability(seconds = 5, connections = 50): Promise<DurabilityResult> {
  const post = scenarios.find((scenario) => scenario.name === 'POST /users')!
  const posts: DurabilityResult['posts'] = []
  for (const users of [50, 10_000]) {
    const measured = await sideBySide(
      [
        () => startServer('sandbox', [String(users), 'fast']),
        () => startServer('sandbox', [String(users), 'fast', 'pretty']),
      ],
      [post],
      seconds,
      connections,
    )
    const [without, durable] = medianPair(measured.get(post.name)!)
    posts.push({ users, without, with: durable, ratio: durable.rps / without.rps })
    console.log(
      `  POST /users at ${users} users: with --data ${durable.rps} req/s (p99 ${durable.p99} ms), without ${without.rps} req/s (${Math.round((durable.rps / without.rps) * 100)}%)`,
    )
  }
  const snapshot = seedData(countsFor(100_000))
  const time = (indent: number | undefined) => {
    const started = performance.now()
    const text = JSON.stringify(snapshot, null, indent)
    return { ms: performance.now() - started, mb: Buffer.byteLength(text) / 1e6 }
  }
  time(2)
  time(undefined)
  const pretty = time(2)
  const compact = time(undefined)
  const serialization = {
    users: 100_000,
    prettyMs: pretty.ms,
    compactMs: compact.ms,
    prettyMb: pretty.mb,
    compactMb: compact.mb,
  }
  console.log(
    `  the data file at 100,000 users: pretty ${pretty.mb.toFixed(1)} MB in ${Math.round(pretty.ms)} ms, compact ${compact.mb.toFixed(1)} MB in ${Math.round(compact.ms)} ms`,
  )
  return { posts, serialization }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildServers()
  console.log(JSON.stringify(await durability(), null, 2))
}
