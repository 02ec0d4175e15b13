import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Sandbox } from '../sandbox/create-sandbox.js'
import type { FrameHeaders } from './respond.js'
import { html, sendPage } from './respond.js'

/** Whether a request is a browser opening a page: it asks for HTML by name. */
function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept
  return typeof accept === 'string' && /(?:^|,)\s*text\/html\s*(?:[;,]|$)/i.test(accept)
}

/**
 * The page a browser gets at `GET /` (issue 32): where the console, the reference and the
 * OpenAPI document are, the fixed tokens and how to sign in, the resources. Everything on it is
 * derived from the sandbox's own catalog and options, so it says what this server serves.
 */
function landing(sandbox: Sandbox, origin: string): string {
  const { catalog, basePath, control, openApiPath } = sandbox.options
  const { accounts } = catalog
  const accountTable = sandbox.db.table(accounts.resource.name)
  const loginOf = (userId: number) =>
    (accountTable.get(userId) as Record<string, unknown> | undefined)?.[accounts.login]
  const first = accounts.tokens[0]
  const example = accounts.tokens.map(({ userId }) => loginOf(userId)).findLast((value) => value)
  const links = [
    control
      ? `<li><a href="/__sandbox/ui">Console</a>: the data, the request journal, the settings and overrides, live</li>`
      : '',
    `<li><a href="/docs">API reference</a> (Swagger UI, try any request)</li>`,
    openApiPath
      ? `<li><a href="${html(openApiPath)}">${html(openApiPath)}</a>: the OpenAPI 3.1 document, for typed clients</li>`
      : '',
    control
      ? `<li><a href="/__sandbox">/__sandbox</a>: the control API (counts, settings, persistence)</li>`
      : '',
  ].join('')
  const resources = catalog.resources
    .map(({ name }) => `<code>${html(`${basePath}/${name}`)}</code>`)
    .join(', ')
  const tokens = accounts.tokens
    .map(
      ({ token, description }) =>
        `<tr><td><code>${html(token)}</code></td><td>${html(description ?? '')}</td></tr>`,
    )
    .join('')
  const body = JSON.stringify({
    [accounts.login]: typeof example === 'string' ? example : `<${accounts.login}>`,
    password: accounts.password,
  })
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(catalog.api.title)} sandbox</title>
<style>
:root { color-scheme: light dark; font: 15px/1.5 system-ui, sans-serif }
body { max-width: 46rem; margin: 2rem auto; padding: 0 1rem }
code, pre { font: 13px ui-monospace, monospace } pre { overflow-x: auto; padding: .6rem; border: 1px solid #8884 }
table { border-collapse: collapse } td { padding: .2rem .8rem .2rem 0 }
</style>
</head>
<body>
<h1>${html(catalog.api.title)} sandbox</h1>
<p>${html(catalog.api.description ?? 'A mock of the API, running on this machine.')} Resources: ${resources}.</p>
<ul>${links}</ul>
<h2>Tokens</h2>
<p>Send one as <code>Authorization: Bearer &lt;token&gt;</code>:</p>
<table>${tokens}</table>
<h2>Sign in</h2>
<p>Every seeded account's password is <code>${html(accounts.password)}</code>:</p>
<pre>curl -X POST -H 'Content-Type: application/json' \\
  -d '${html(body)}' ${html(`${origin}${basePath}/sessions`)}</pre>
${
  first
    ? `<p>Then, or with a fixed token:</p>
<pre>curl -H 'Authorization: Bearer ${html(first.token)}' ${html(`${origin}${basePath}/${accounts.resource.name}`)}</pre>`
    : ''
}
</body>
</html>
`
}

/**
 * Serves the landing page at `/` to a browser (a request asking for `text/html`) when no route
 * of the API lives there; false otherwise, so any other request to `/` gets the contract's 404.
 */
export function landingPage(
  sandbox: Sandbox,
): (req: IncomingMessage, res: ServerResponse, path: string, frame: FrameHeaders) => boolean {
  return (req, res, path, frame) => {
    if (path !== '/' || (req.method !== 'GET' && req.method !== 'HEAD') || !wantsHtml(req))
      return false
    const body = landing(sandbox, `http://${req.headers.host ?? '127.0.0.1'}`)
    sendPage(req, res, frame, 'text/html; charset=utf-8', body, {
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
    })
    return true
  }
}
