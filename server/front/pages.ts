import type { Step } from '../../http/compose.js'
import type { Sandbox } from '../../sandbox/create-sandbox.js'
import { consolePage } from '../console-page.js'
import { docsPage } from '../docs-page.js'
import { landingPage } from '../landing-page.js'
import type { Front } from './context.js'

/**
 * The server's own pages: the landing page, the API reference (`/docs`) and the console
 * (`/__sandbox/ui`, with the control API), each loading everything from the package itself.
 */
export function pages(sandbox: Sandbox): Step<Front, void> {
  const docs = docsPage(sandbox.options.catalog.api.title)
  const ui = consolePage()
  const home = landingPage(sandbox)
  return {
    name: 'pages',
    run(f, next) {
      const { req, res, frame } = f
      const path = f.url.pathname
      if (docs(req, res, path, frame) || home(req, res, path, frame)) return
      if (sandbox.options.control && ui(req, res, path, frame)) return
      next(f)
    },
  }
}
