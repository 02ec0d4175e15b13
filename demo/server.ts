import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { findWorkerScript } from '../bin/init.js'

const demoDir = fileURLToPath(new URL('.', import.meta.url))

/** Bundles the demo page's script (and the sandbox with it) for the browser. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [`${demoDir}main.ts`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: true,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/**
 * Serves the demo: its page, its bundled script, and MSW's worker script, all from the repo
 * and node_modules (no CDN). Everything else is a 404, so requests the sandbox does not claim
 * visibly fall through.
 */
export async function startDemoServer(
  port = 5173,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const [html, script, worker] = await Promise.all([
    readFile(`${demoDir}index.html`, 'utf8'),
    bundle(),
    readFile(findWorkerScript(), 'utf8'),
  ])
  const files: Record<string, [string, string]> = {
    '/': ['text/html; charset=utf-8', html],
    '/index.html': ['text/html; charset=utf-8', html],
    '/main.js': ['text/javascript; charset=utf-8', script],
    '/mockServiceWorker.js': ['text/javascript; charset=utf-8', worker],
  }
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://demo').pathname]
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1])
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const { port: actual } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${actual}/`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
