import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { artifacts, browserAvailable, launchChromium } from '../support/browser.js'

const exec = promisify(execFile)
const run = browserAvailable()
const repo = fileURLToPath(new URL('../../', import.meta.url))

/** A Vite app that starts the sandbox with its console, as the browser guide says. */
const main = `async function start() {
  if (import.meta.env.DEV) {
    const { startSandbox } = await import('shop-sandbox/browser')
    // ?passthrough: what the sandbox lacks goes on to the network (CONTRACT C4).
    const passthrough = new URLSearchParams(location.search).has('passthrough')
    await startSandbox({ baseUrl: '/api', console: true, quiet: true, passthrough })
  }
  document.querySelector('#app')!.textContent = 'the app'
  ;(window as unknown as { ready: boolean }).ready = true
}
start()
`

/** What the app sends: its own fetch, through MSW's worker. */
async function appFetch(page: Page, path: string, init: RequestInit = {}) {
  return page.evaluate(
    async ({ path, init }) => {
      const response = await fetch(path, init)
      return { status: response.status, body: await response.text() }
    },
    { path, init },
  )
}
const admin = { Authorization: 'Bearer sandbox-admin-token', 'Content-Type': 'application/json' }

describe.runIf(run)(
  'the console in browser mode: startSandbox({ console: true }) in a Vite app (issue 33)',
  () => {
    let folder: string
    let vite: ViteDevServer
    let browser: Browser
    let page: Page
    const errors: string[] = []

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'shop-sandbox-vite-'))
      await mkdir(join(folder, 'public'))
      await copyFile(
        join(repo, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js'),
        join(folder, 'public', 'mockServiceWorker.js'),
      )
      await writeFile(
        join(folder, 'index.html'),
        '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><div id="app"></div><script type="module" src="/main.ts"></script></body></html>',
      )
      await writeFile(join(folder, 'main.ts'), main)
      vite = await createServer({
        root: folder,
        configFile: false,
        logLevel: 'error',
        resolve: { alias: { 'shop-sandbox/browser': join(repo, 'browser', 'index.ts') } },
        server: { host: '127.0.0.1', port: 0, fs: { allow: [folder, repo] } },
        // The app's real backend, for the one endpoint the sandbox lacks.
        plugins: [
          {
            name: 'real-backend',
            configureServer(server) {
              server.middlewares.use('/api/real', (_req, res) => {
                res.setHeader('content-type', 'application/json')
                res.end(JSON.stringify({ from: 'the network' }))
              })
            },
          },
        ],
      })
      await vite.listen()
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.on('console', (message) => {
        // The app's own 404s and 503s (asked for by the tests) are logged as failed loads.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          errors.push(message.text())
      })
      page.on('pageerror', (error) => errors.push(String(error)))
      await page.goto(vite.resolvedUrls!.local[0]!)
      await page.waitForFunction(
        () => (window as unknown as { ready?: boolean }).ready === true,
        null,
        {
          timeout: 60_000,
        },
      )
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await vite?.close()
      if (folder) await rm(folder, { recursive: true, force: true })
    })

    const counts = () =>
      page.$$eval('shop-sandbox-console .count', (boxes) =>
        boxes.map(
          (box) =>
            `${(box as HTMLElement).dataset.collection}:${box.querySelector('b')!.textContent}`,
        ),
      )
    const panel = () => page.locator('shop-sandbox-console .panel')

    it('a button opens it over the app, in a shadow root, against the sandbox in the page', async () => {
      expect(await page.locator('#app').textContent()).toBe('the app')
      await expect.poll(() => panel().isHidden()).toBe(true)
      await page.locator('shop-sandbox-console .toggle').click()
      await page.locator('shop-sandbox-console .sbx[data-console="ready"]').waitFor()
      expect(await counts()).toEqual(['users:50', 'products:30', 'orders:100'])
      // Its styles stay in its shadow root: the app's page is untouched.
      expect(await page.evaluate(() => document.head.querySelectorAll('style').length)).toBe(0)
      // Ctrl+Alt+S closes and opens it.
      await page.keyboard.press('Control+Alt+s')
      await expect.poll(() => panel().isHidden()).toBe(true)
      await page.keyboard.press('Control+Alt+s')
      await expect.poll(() => panel().isVisible()).toBe(true)
    })

    it("shows the app's requests live, with their headers, and marks an overridden one", async () => {
      await appFetch(page, '/api/users/3', { headers: { ...admin, 'X-Client': 'web' } })
      const row = page.locator('shop-sandbox-console #journal summary', { hasText: '/users/3' })
      await row.first().waitFor({ timeout: 10_000 })
      await row.first().click()
      const open = page.locator('shop-sandbox-console #journal details[open]')
      await expect.poll(() => open.first().textContent()).toContain('"x-client": "web"')
      await expect.poll(() => open.first().textContent()).toContain('"authorization": "Bearer ***"')
    })

    it('adds a sequence from the form; the journal marks what answered and what nearly matched', async () => {
      const field = (id: string) => page.locator(`shop-sandbox-console #${id}`)
      await field('o-method').selectOption('GET')
      await field('o-path').fill('/products')
      await field('o-sequence').fill(
        '[{"status": 503}, {"status": 200, "data": {"list": [], "total": 0, "page": 1, "pageSize": 20}}]',
      )
      await page.locator('shop-sandbox-console #override-form button[type=submit]').click()
      await page
        .locator('shop-sandbox-console #overrides tr', { hasText: 'sequence of 2' })
        .waitFor()
      const first = await appFetch(page, '/api/products', { headers: admin })
      const second = await appFetch(page, '/api/products', { headers: admin })
      expect([first.status, second.status]).toEqual([503, 200])
      await page
        .locator('shop-sandbox-console #journal summary', { hasText: 'override #' })
        .first()
        .waitFor({ timeout: 10_000 })

      await field('o-method').selectOption('GET')
      await field('o-path').fill('/reports')
      await field('o-sequence').fill('')
      await field('o-status').fill('200')
      await field('o-headers').fill('{"X-Client": "ios"}')
      await page.locator('shop-sandbox-console #override-form button[type=submit]').click()
      await page.locator('shop-sandbox-console #overrides tr', { hasText: '/reports' }).waitFor()
      const missed = await appFetch(page, '/api/reports', { headers: { 'X-Client': 'web' } })
      expect(missed.status).toBe(404)
      expect(JSON.parse(missed.body).message).toContain('x-client')
      await page
        .locator('shop-sandbox-console #journal summary', { hasText: 'near miss #' })
        .first()
        .waitFor({ timeout: 10_000 })
    })

    it('edits a record through the API, showing its 422 inline; a change made elsewhere shows without a reload', async () => {
      const field = (id: string) => page.locator(`shop-sandbox-console #${id}`)
      await page.locator('shop-sandbox-console #rows tr[data-id="5"]').click()
      const editor = field('editor-text')
      const record = JSON.parse(await editor.inputValue())
      await editor.fill(JSON.stringify({ ...record, name: 'x' }))
      await field('editor-save').click()
      await expect
        .poll(() => field('editor-error').textContent())
        .toContain('name: must be at least 2 characters long')
      await editor.fill(JSON.stringify({ ...record, name: 'edited-five' }))
      await field('editor-save').click()
      await page
        .locator('shop-sandbox-console #rows tr[data-id="5"]', { hasText: 'edited-five' })
        .waitFor()
      expect(
        JSON.parse((await appFetch(page, '/api/users/5', { headers: admin })).body).data.name,
      ).toBe('edited-five')

      await appFetch(page, '/api/users/6', {
        method: 'PATCH',
        headers: admin,
        body: JSON.stringify({ name: 'patched-six' }),
      })
      await page
        .locator('shop-sandbox-console #rows tr[data-id="6"]', { hasText: 'patched-six' })
        .waitFor({ timeout: 10_000 })
    })

    it('creates and deletes records', async () => {
      const field = (id: string) => page.locator(`shop-sandbox-console #${id}`)
      await field('new').click()
      await field('editor-text').fill(
        JSON.stringify({ name: 'from-console', email: 'fc@example.com' }),
      )
      await field('editor-save').click()
      await expect.poll(counts, { timeout: 10_000 }).toContain('users:51')
      await page.locator('shop-sandbox-console #rows tr[data-id="7"]').click()
      await field('editor-delete').click()
      await expect.poll(counts, { timeout: 10_000 }).toContain('users:50')
      expect((await appFetch(page, '/api/users/7', { headers: admin })).status).toBe(404)
    })

    it('is usable 360 px wide: nothing spills out of the screen', async () => {
      await page.setViewportSize({ width: 360, height: 740 })
      await page.waitForTimeout(200)
      const widths = await page.evaluate(() => {
        const panel = document
          .querySelector('shop-sandbox-console')!
          .shadowRoot!.querySelector('.panel')!
        const edge = panel.getBoundingClientRect().right
        const over = [...panel.querySelectorAll('*')]
          // Inside a scroller (a wide table, a long header value) scrolling is the design.
          .filter((element) => !element.parentElement!.closest('.scroll, pre, #journal'))
          .filter((element) => element.getBoundingClientRect().right > edge + 1)
          .map((element) => `${element.tagName}#${element.id}.${element.className}`)
        return {
          page: document.documentElement.scrollWidth,
          panel: panel.scrollWidth,
          view: panel.clientWidth,
          over,
        }
      })
      expect(widths.page).toBeLessThanOrEqual(360)
      expect(widths.over).toEqual([])
      expect(widths.panel).toBeLessThanOrEqual(widths.view + 1)
      await page.screenshot({
        path: fileURLToPath(new URL('console-browser-mode-360.png', artifacts)),
      })
      expect(errors).toEqual([])
    })

    it('passthrough: true sends what the sandbox lacks on to the network; the API stays mocked', async () => {
      const network = await appFetch(page, '/api/real/thing')
      expect(JSON.parse(network.body).code).toBe(40400)
      await page.goto(`${vite.resolvedUrls!.local[0]!}?passthrough`)
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
      const real = await appFetch(page, '/api/real/thing')
      expect(JSON.parse(real.body)).toEqual({ from: 'the network' })
      const mocked = await appFetch(page, '/api/users/1', { headers: admin })
      expect(JSON.parse(mocked.body).data.id).toBe(1)
      const journal = await appFetch(page, '/__sandbox/requests?path=/real/thing')
      expect(JSON.parse(journal.body).data.list[0]).toMatchObject({ proxied: true })
    })

    it('the panel lists the scenarios with their descriptions and switches the sandbox it shows (CONTRACT C5)', async () => {
      await page.goto(vite.resolvedUrls!.local[0]!)
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
      await page.locator('shop-sandbox-console .toggle').click()
      await page.locator('shop-sandbox-console .sbx[data-console="ready"]').waitFor()
      const rows = page.locator('shop-sandbox-console #scenarios tr')
      await expect.poll(() => rows.count()).toBe(7)
      expect(await rows.nth(1).textContent()).toContain('The two fixed accounts only')
      await page.locator('shop-sandbox-console [aria-label="Use scenario empty"]').click()
      await expect.poll(counts).toEqual(['users:2', 'products:0', 'orders:0'])
      await expect
        .poll(() => page.locator('shop-sandbox-console #scenario-current').textContent())
        .toBe('empty')
      const products = await appFetch(page, '/api/products', { headers: admin })
      expect(JSON.parse(products.body).data.total).toBe(0)
      await page.locator('shop-sandbox-console [aria-label="Use scenario default"]').click()
      await expect.poll(counts).toEqual(['users:50', 'products:30', 'orders:100'])
    })

    it('?scenario=<name> in the page address opens the app in that scenario; an unknown name warns and starts in default', async () => {
      const warnings: string[] = []
      page.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text())
      })
      await page.goto(`${vite.resolvedUrls!.local[0]!}?scenario=out-of-stock`)
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
      const products = JSON.parse(
        (await appFetch(page, '/api/products?pageSize=100', { headers: admin })).body,
      )
      expect(products.data.total).toBe(30)
      expect(products.data.list.every((product: { stock: number }) => product.stock === 0)).toBe(
        true,
      )
      const info = JSON.parse((await appFetch(page, '/__sandbox')).body)
      expect(info.data.scenario).toBe('out-of-stock')
      await page.goto(`${vite.resolvedUrls!.local[0]!}?scenario=big`)
      await page.waitForFunction(
        () => (window as unknown as { ready?: boolean }).ready === true,
        null,
        {
          timeout: 30_000,
        },
      )
      const big = JSON.parse((await appFetch(page, '/__sandbox')).body)
      expect(big.data.counts).toEqual({ users: 10_000, products: 1_000, orders: 20_000 })
      await page.goto(`${vite.resolvedUrls!.local[0]!}?scenario=nope`)
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
      expect(JSON.parse((await appFetch(page, '/__sandbox')).body).data.scenario).toBe('default')
      expect(warnings.join('\n')).toMatch(/\?scenario=nope names no scenario/)
      await page.goto(vite.resolvedUrls!.local[0]!)
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
    }, 60_000)

    it('never reaches a production build (the DEV check leaves it out)', async () => {
      // `vite build` as a reader runs it: a process of its own (vitest's NODE_ENV=test keeps DEV on).
      const out = join(folder, 'dist')
      const vite = pathToFileURL(
        join(repo, 'node_modules', 'vite', 'dist', 'node', 'index.js'),
      ).href
      const script = `import { build } from ${JSON.stringify(vite)}
await build({ root: ${JSON.stringify(folder)}, configFile: false, logLevel: 'error', mode: 'production',
  resolve: { alias: { 'shop-sandbox/browser': ${JSON.stringify(join(repo, 'browser', 'index.ts'))} } },
  build: { outDir: ${JSON.stringify(out)}, emptyOutDir: true } })`
      const env = { ...process.env }
      delete env.NODE_ENV
      delete env.VITEST
      await exec(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 120_000 })
      const files = await readdir(join(out, 'assets'))
      const code = (
        await Promise.all(
          files
            .filter((name) => name.endsWith('.js'))
            .map((name) => readFile(join(out, 'assets', name), 'utf8')),
        )
      ).join('\n')
      expect(code.includes('the app')).toBe(true)
      expect(code.includes('shop-sandbox console')).toBe(false)
      expect(code.includes('mockServiceWorker')).toBe(false)
    }, 120_000)
  },
)
