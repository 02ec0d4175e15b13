import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { artifacts, browserAvailable, launchChromium } from '../support/browser.js'

const run = browserAvailable()
const admin = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }

describe.runIf(run)('the sandbox console (GET /__sandbox/ui) in Chromium', () => {
  let browser: Browser
  let server: SandboxServer
  let page: Page
  const errors: string[] = []
  const foreign: string[] = []

  beforeAll(async () => {
    server = await createSandboxServer({ port: 0 })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(String(error)))
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== new URL(server.url).origin) foreign.push(request.url())
    })
    await page.goto(`${server.url}/__sandbox/ui`)
    await page.waitForSelector('html[data-console="ready"]')
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  const counts = () =>
    page.$$eval('#counts .count', (boxes) =>
      boxes.map(
        (box) =>
          `${(box as HTMLElement).dataset.collection}:${box.querySelector('b')!.textContent}`,
      ),
    )
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { ...admin, ...init.headers } })

  it('loads from the sandbox alone, with no console errors, and shows the three collections', async () => {
    expect(await counts()).toEqual(['users:50', 'products:30', 'orders:100'])
    expect(await page.locator('#rows tr').count()).toBe(15)
    await page.fill('#search', 'admin@example.com')
    expect(await page.locator('#rows tr').count()).toBe(1)
    await page.fill('#search', '')
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
  })

  it('a request made elsewhere appears in the journal without a reload, with its bodies', async () => {
    await api('/users/7')
    const row = page.locator('#journal summary', { hasText: '/users/7' })
    await row.first().waitFor({ timeout: 10_000 })
    await row.first().click()
    await expect
      .poll(() => page.locator('#journal details[open] pre').first().textContent())
      .toContain('"id": 7')
  })

  it('a settings change takes effect on the next API request', async () => {
    await page.fill('#errorRate', '1')
    await page.press('#errorRate', 'Tab')
    await expect
      .poll(async () => (await api('/users/1')).status, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(500)
    await page.click('#errorRate')
    await page.fill('#errorRate', '0')
    await page.press('#errorRate', 'Tab')
    await expect.poll(async () => (await api('/users/1')).status, { timeout: 10_000 }).toBe(200)
  })

  it('overrides: add from the form, see it answer, remove it', async () => {
    await page.selectOption('#o-method', 'GET')
    await page.fill('#o-path', '/products')
    await page.fill('#o-status', '503')
    await page.click('#override-form button[type=submit]')
    await page.locator('#overrides tr', { hasText: '/products' }).waitFor()
    expect((await api('/products')).status).toBe(503)
    await page.click('#overrides button')
    await expect.poll(async () => (await api('/products')).status, { timeout: 10_000 }).toBe(200)
  })

  it('reset puts the data back; the selector lists named sandboxes', async () => {
    await api('/users', {
      method: 'POST',
      body: JSON.stringify({ name: 'ui', email: 'ui@example.com' }),
    })
    await expect.poll(counts, { timeout: 10_000 }).toContain('users:51')
    await page.click('#reset')
    await expect.poll(counts, { timeout: 10_000 }).toContain('users:50')
    expect((await (await api('/users?pageSize=1')).json()).data.total).toBe(50)
    await page.locator('#journal summary').first().click()
    await page.screenshot({ path: fileURLToPath(new URL('console.png', artifacts)) })
    await api('/users/1', { headers: { 'x-sandbox-id': 'worker-9' } })
    await expect
      .poll(() => page.$$eval('#sandbox option', (options) => options.map((o) => o.textContent)), {
        timeout: 10_000,
      })
      .toContain('worker-9')
    expect(errors).toEqual([])
  })

  it('follows the Host and Origin rules, and is off with control: false', async () => {
    const hostile = await fetch(`${server.url}/__sandbox/ui`, {
      headers: { origin: 'http://evil.example' },
    })
    expect(hostile.status).toBe(403)
    const off = await createSandboxServer({ port: 0, control: false })
    try {
      expect((await fetch(`${off.url}/__sandbox/ui`)).status).toBe(404)
    } finally {
      await off.close()
    }
  })
})
