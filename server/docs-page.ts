import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import type { FrameHeaders } from './respond.js'
import { html, sendPage } from './respond.js'

/** Folder of swagger-ui-dist, the reference page's viewer, served from node_modules (no CDN). */
function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

/** The page, titled after the API it documents (its definition's title). */
const pageOf = (title: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${html(title)} reference (shop-sandbox)</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>body { margin: 0 } .topbar { display: none }</style>
  </head>
  <body>
    <p style="font: 14px system-ui, sans-serif; margin: .5rem 1rem"><a href="/__sandbox/ui">Sandbox console</a></p>
    <div id="reference"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`

const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: true,
  displayRequestDuration: true,
})
`

const types: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.html': 'text/html; charset=utf-8',
}

/** The assets the page loads: nothing else of the package folder is served. */
const assets = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'])

/**
 * `GET /docs`: a readable reference of the API, Swagger UI rendering `/openapi.json`. Its
 * scripts and styles come from the installed swagger-ui-dist package. Returns false for
 * paths that are not its own.
 */
export function docsPage(
  title: string,
): (req: IncomingMessage, res: ServerResponse, path: string, frame: FrameHeaders) => boolean {
  let folder: string | undefined
  const cache = new Map<string, Promise<Buffer>>()
  const page = pageOf(title)
  return (req, res, path, frame) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false
    if (path === '/docs' || path === '/docs/') {
      sendPage(req, res, frame, types['.html']!, page, { 'cache-control': 'no-cache' })
    } else if (path === '/docs/init.js') {
      sendPage(req, res, frame, types['.js']!, init, { 'cache-control': 'no-cache' })
    } else if (path.startsWith('/docs/assets/') && assets.has(path.slice(13))) {
      const name = path.slice(13)
      folder ??= swaggerUiFolder()
      let file = cache.get(name)
      if (!file) {
        file = readFile(join(folder, name))
        cache.set(name, file)
      }
      file.then(
        (bytes) =>
          sendPage(req, res, frame, types[extname(name)]!, bytes, {
            'cache-control': 'public, max-age=3600',
          }),
        () => {
          cache.delete(name)
          res.writeHead(404, frame).end()
        },
      )
    } else {
      return false
    }
    return true
  }
}
