import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer, openApiDocument } from '../../node/index.js'
import { artifacts, browserAvailable, launchChromium } from '../support/browser.js'

const run = browserAvailable()

describe.runIf(run)('the reference page at /docs, in Chromium', () => {
  let browser: Browser
  let server: SandboxServer
  beforeAll(async () => {
    server = await createSandboxServer({ port: 0 })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('lists every operation, loading nothing from another origin', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
    const origins = new Set<string>()
    page.on('request', (request) => {
      origins.add(new URL(request.url()).origin)
    })
    await page.goto(`${server.url}/docs`)
    await page.waitForSelector('.opblock', { timeout: 15_000 })
    const operations = await page.locator('.opblock').count()
    const documented = Object.values(openApiDocument().paths as Record<string, object>).flatMap(
      (item) =>
        Object.keys(item).filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key)),
    )
    expect(operations).toBe(documented.length)
    expect(await page.locator('.opblock-summary-path').allTextContents()).toContain(
      '/users/{user_id}/orders/{order_id}',
    )
    await page.screenshot({ path: fileURLToPath(new URL('docs.png', artifacts)) })
    expect([...origins]).toEqual([new URL(server.url).origin])
  })
})
