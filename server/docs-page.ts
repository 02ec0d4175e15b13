import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import express from 'express'

/** Folder of swagger-ui-dist, the reference page's viewer, served from node_modules (no CDN). */
function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Shop API reference (shop-sandbox)</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>body { margin: 0 } .topbar { display: none }</style>
  </head>
  <body>
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

/**
 * `GET /docs`: a readable reference of the API, Swagger UI rendering `/openapi.json`. Its
 * scripts and styles come from the installed swagger-ui-dist package.
 */
export function docsPage() {
  const router = express.Router()
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(page)
  })
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(init)
  })
  router.use('/docs/assets', express.static(swaggerUiFolder(), { index: false, maxAge: '1h' }))
  return router
}
