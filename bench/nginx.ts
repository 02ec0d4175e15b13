import type { ChildProcess } from 'node:child_process'
import { execFileSync, spawn } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * nginx in front of sandbox processes, with the configuration the scale-out guide shows
 * (docs/guide/scale-out.md, read from the page so the guide, the test and the bench cannot
 * differ): used by test/e2e/scale-out.test.ts and by the bench's scale-out row.
 */

/** The nginx binary (Debian puts it in /usr/sbin, not always on PATH), or null. */
export function nginxBinary(): string | null {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' })
      return candidate
    } catch {
      // Not this one.
    }
  }
  return null
}

/**
 * Starts nginx listening on `listen`, balancing over `ports` on 127.0.0.1, with its files in
 * `folder`; resolves with the process once the configuration is written and nginx started.
 */
export async function startNginx(
  folder: string,
  listen: number,
  ports: readonly number[],
): Promise<ChildProcess> {
  const binary = nginxBinary()
  if (!binary) throw new Error('nginx is not installed (apt-get install -y nginx)')
  const page = await readFile(
    fileURLToPath(new URL('../docs/guide/scale-out.md', import.meta.url)),
    'utf8',
  )
  const config = /```nginx\n([\s\S]*?)```/.exec(page)![1]!
  const servers = ports.map((port) => `    server 127.0.0.1:${port} max_fails=0;`).join('\n')
  const local = config
    .replace('127.0.0.1:4010', `127.0.0.1:${listen}`)
    .replace(/^ {4}server 127\.0\.0\.1:4011.*\n(?: {4}server .*\n)*/m, `${servers}\n`)
  if (local === config) throw new Error('the scale-out guide’s configuration has changed shape')
  await mkdir(join(folder, 'tmp'), { recursive: true })
  // As root, nginx's worker would otherwise run as nobody, who cannot use this folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : ''
  await writeFile(join(folder, 'nginx.conf'), `${user}${local}`)
  return spawn(binary, ['-p', folder, '-c', join(folder, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Resolves once `url` answers at all (any status), or rejects after about 10 s. */
export async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`${url} never answered`)
}
