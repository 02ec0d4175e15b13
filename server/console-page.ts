import type { IncomingMessage, ServerResponse } from 'node:http'
import { failure, noContent } from '../contract/envelope.js'
import { mountConsole } from '../console/mount.js'
import { methodRefused } from '../http/router.js'
import type { FrameHeaders } from './respond.js'
import { sendAnswer, sendPage } from './respond.js'

/**
 * `GET /__sandbox/ui`: the sandbox console, one page and one script from the package (no CDN,
 * no fonts). The script is `mountConsole` itself (console/mount.ts), sent as its source: the
 * same code runs here and, in browser mode, in the app's page.
 */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shop-sandbox console</title>
<link rel="icon" href="data:,">
<style>html, body { margin: 0; min-height: 100% }</style>
</head>
<body>
<script src="/__sandbox/ui/console.js"></script>
</body>
</html>
`

/** The page's script: the console mounted in the page, against this origin. */
const script = `'use strict';\n(${mountConsole.toString()})(document.body, { origin: '' })\n`

/** Serves the console page and its script; false for other paths. */
export function consolePage(): (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  frame: FrameHeaders,
) => boolean {
  return (req, res, path, frame) => {
    let body: string
    let type: string
    if (path === '/__sandbox/ui' || path === '/__sandbox/ui/') {
      ;[body, type] = [page, 'text/html; charset=utf-8']
    } else if (path === '/__sandbox/ui/console.js') {
      ;[body, type] = [script, 'text/javascript; charset=utf-8']
    } else return false
    // Another method: what any control route answers for one it does not take (B2).
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const allow = 'GET'
      const answer =
        req.method === 'OPTIONS'
          ? noContent({ allow })
          : failure(methodRefused(req.method ?? '', path, allow))
      sendAnswer(req, res, answer, frame)
      return true
    }
    sendPage(req, res, frame, type, body, {
      // Everything from this origin, nothing inline but styles: a page that steers the sandbox runs no foreign code.
      'content-security-policy':
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; frame-ancestors 'none'",
    })
    return true
  }
}
