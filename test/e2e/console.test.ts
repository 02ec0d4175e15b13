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
      // A 422 the editor shows, a 404 after a delete: failed loads the tests ask for.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(String(error)))
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== new URL(server.url).origin) foreign.push(request.url())
    })
    await page.goto(`${server.url}/__sandbox/ui`)
    await page.waitForSelector('.sbx[data-console="ready"]')
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
    const blocks = () => page.locator('#journal details[open] pre').allTextContents()
    await expect.poll(async () => (await blocks()).join('\n')).toContain('"id": 7')
    const shown = (await blocks()).join('\n')
    // The request's headers, the token masked; the response's headers.
    expect(shown).toContain('"authorization": "Bearer ***"')
    expect(shown).not.toContain('sandbox-admin-token')
    expect(shown).toMatch(/"x-request-id": "[0-9a-f-]{36}"/)
    expect(shown).toContain('"content-type": "application/json')
  })

  it('edits, creates and deletes a record through the API, its 422 shown inline', async () => {
    await page.locator('#rows tr[data-id="4"]').click()
    const record = JSON.parse(await page.inputValue('#editor-text'))
    await page.fill('#editor-text', JSON.stringify({ ...record, email: 'not an email' }))
    await page.click('#editor-save')
    await expect.poll(() => page.textContent('#editor-error')).toContain('email')
    expect((await (await api('/users/4')).json()).data.email).toBe(record.email)
    await page.fill('#editor-text', JSON.stringify({ ...record, name: 'from the console' }))
    await page.click('#editor-save')
    await page.locator('#rows tr[data-id="4"]', { hasText: 'from the console' }).waitFor()
    expect((await (await api('/users/4')).json()).data.name).toBe('from the console')

    await page.click('#new')
    await page.fill(
      '#editor-text',
      JSON.stringify({ name: 'console new', email: 'cn@example.com' }),
    )
    await page.click('#editor-save')
    await expect.poll(counts, { timeout: 10_000 }).toContain('users:51')
    await page.fill('#search', 'cn@example.com')
    await page.locator('#rows tr[data-id="51"]').click()
    await page.click('#editor-delete')
    await expect.poll(counts, { timeout: 10_000 }).toContain('users:50')
    await page.fill('#search', '')
    expect((await api('/users/51')).status).toBe(404)
    await api('/__sandbox/db', { method: 'DELETE' })
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

  it('lists the scenarios with their descriptions and switches the sandbox it shows (CONTRACT C5)', async () => {
    const rows = page.locator('#scenarios tr')
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(7)
    expect(
      await page.locator('#scenarios tr[data-scenario="out-of-stock"]').textContent(),
    ).toContain('every product out of stock')
    await page.click('[aria-label="Use scenario out-of-stock"]')
    await expect.poll(() => page.locator('#scenario-current').textContent()).toBe('out-of-stock')
    const products = await (await api('/products?pageSize=100')).json()
    expect(products.data.list.every((product: { stock: number }) => product.stock === 0)).toBe(true)
    await page.click('[aria-label="Use scenario default"]')
    await expect.poll(() => page.locator('#scenario-current').textContent()).toBe('default')
    expect(errors).toEqual([])
  })

  it('finds any of more than a hundred named sandboxes by name, and pages through them', async () => {
    for (let n = 0; n < 120; n++)
      await api('/products?pageSize=1', { headers: { 'x-sandbox-id': `team-${n}` } })
    await page.reload()
    await page.waitForSelector('.sbx[data-console="ready"]')
    await expect
      .poll(() => page.textContent('#sandbox-more'), { timeout: 10_000 })
      .toMatch(/more… \(12\d\)/)
    await page.fill('#sandbox-search', 'team-117')
    await expect
      .poll(() =>
        page.$$eval('#sandbox option', (options) =>
          options.map((o) => (o as HTMLOptionElement).value),
        ),
      )
      .toContain('team-117')
    await page.selectOption('#sandbox', 'team-117')
    await expect
      .poll(counts, { timeout: 10_000 })
      .toEqual(['users:50', 'products:30', 'orders:100'])
    await page.fill('#sandbox-search', '')
    await page.selectOption('#sandbox', '')
  })

  it('fits a 360 px screen', async () => {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.screenshot({ path: fileURLToPath(new URL('console-360.png', artifacts)) })
    await page.setViewportSize({ width: 1400, height: 900 })
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
