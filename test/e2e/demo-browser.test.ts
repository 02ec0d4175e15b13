import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { artifacts, browserAvailable, useDemoInChromium } from '../support/browser.js'

const run = browserAvailable()

/** Runs fetch in the page and returns what the app would see. */
function pageFetch(
  page: Page,
  url: string,
  init: { method?: string; token?: string | null; body?: unknown } = {},
) {
  return page.evaluate(
    async ({ url, init }) => {
      const headers: Record<string, string> = {}
      const token = init.token === undefined ? 'sandbox-admin-token' : init.token
      if (token) headers.authorization = `Bearer ${token}`
      if (init.body !== undefined) headers['content-type'] = 'application/json'
      const response = await fetch(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? null : JSON.stringify(init.body),
      })
      const text = await response.text()
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: text ? JSON.parse(text) : null,
      }
    },
    { url, init },
  )
}

describe.runIf(run)('browser mode in Chromium', () => {
  const demo = useDemoInChromium()
  const contexts: BrowserContext[] = []
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close()
  })

  async function open(query = '', context?: BrowserContext): Promise<Page> {
    const ctx = context ?? (await demo.newContext())
    if (!context) contexts.push(ctx)
    const page = await ctx.newPage()
    await page.goto(`${demo.url}${query}`)
    await page.waitForSelector('html[data-sandbox="ready"]', { timeout: 15_000 })
    return page
  }

  it('starts the worker, shows the demo, and answers the page’s fetch with the envelope', async () => {
    const page = await open()
    await page.waitForSelector('#users tr')
    await page.screenshot({ path: fileURLToPath(new URL('demo.png', artifacts)), fullPage: true })
    expect(await page.locator('#users tr').count()).toBe(10)
    const reply = await pageFetch(page, '/users?pageSize=3')
    expect(reply.status).toBe(200)
    expect(reply.contentType).toBe('application/json; charset=utf-8')
    expect(reply.body).toMatchObject({
      code: 0,
      message: 'success',
      data: { total: 50, page: 1, pageSize: 3 },
    })
    expect(await page.locator('#envelope').textContent()).toContain('"code": 0')
  })

  it('POST then GET sees the new user', async () => {
    const page = await open()
    const created = await pageFetch(page, '/users', {
      method: 'POST',
      body: { name: 'in-browser', email: 'browser@example.com' },
    })
    expect(created.status).toBe(201)
    const read = await pageFetch(page, `/users/${created.body.data.id}`)
    expect(read.body.data).toEqual(created.body.data)
  })

  it('401 without a token, 403 with the member token', async () => {
    const page = await open()
    const anonymous = await pageFetch(page, '/users', { token: null })
    expect(anonymous).toMatchObject({ status: 401, body: { code: 40100, data: null } })
    const member = await pageFetch(page, '/users', { token: 'sandbox-member-token' })
    expect(member).toMatchObject({ status: 403, body: { code: 40300, data: null } })
  })

  it('answers XMLHttpRequest too', async () => {
    const page = await open()
    const status = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const xhr = new XMLHttpRequest()
          xhr.open('GET', '/products/1')
          xhr.setRequestHeader('authorization', 'Bearer sandbox-member-token')
          xhr.onload = () => resolve(xhr.status)
          xhr.send()
        }),
    )
    expect(status).toBe(200)
  })

  it('persist keeps a created user across a reload, and a second tab sees it', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    const page = await open('?persist=1', context)
    const created = await pageFetch(page, '/users', {
      method: 'POST',
      body: { name: 'kept', email: 'kept@example.com' },
    })
    expect(created.status).toBe(201)
    await page.reload()
    await page.waitForSelector('html[data-sandbox="ready"]')
    expect((await pageFetch(page, `/users/${created.body.data.id}`)).status).toBe(200)
    const second = await open('?persist=1', context)
    expect((await pageFetch(second, '/users?keyword=kept')).body.data.total).toBe(1)
    // Live sync: a change in one open tab reaches the other without a reload.
    await pageFetch(second, `/users/${created.body.data.id}`, { method: 'DELETE' })
    await expect
      .poll(async () => (await pageFetch(page, `/users/${created.body.data.id}`)).status)
      .toBe(404)
    const next = await pageFetch(page, '/users', {
      method: 'POST',
      body: { name: 'next-one', email: 'next@example.com' },
    })
    expect(next.body.data.id).toBe(created.body.data.id + 1)
  })

  it('persist and ?scenario=: the link opens that state, a reload keeps what was written in it, a page naming none starts in it', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    const state = async (page: Page) => ({
      scenario: (await pageFetch(page, '/__sandbox', { token: null })).body.data.scenario,
      products: (await pageFetch(page, '/products?pageSize=1')).body.data.total,
    })
    const first = await open('?persist=1', context)
    expect(await state(first)).toEqual({ scenario: 'default', products: 30 })
    await first.close()
    // Saved data of another scenario give way to the one the address names.
    const empty = await open('?persist=1&scenario=empty', context)
    expect(await state(empty)).toEqual({ scenario: 'empty', products: 0 })
    const created = await pageFetch(empty, '/products', {
      method: 'POST',
      body: { name: 'Only One', sku: 'ONLY-1', price: 5, stock: 1 },
    })
    expect(created.status).toBe(201)
    await empty.reload()
    await empty.waitForSelector('html[data-sandbox="ready"]')
    expect(await state(empty)).toEqual({ scenario: 'empty', products: 1 })
    await empty.close()
    const plain = await open('?persist=1', context)
    expect(await state(plain)).toEqual({ scenario: 'empty', products: 1 })
    await plain.close()
    const back = await open('?persist=1&scenario=default', context)
    expect(await state(back)).toEqual({ scenario: 'default', products: 30 })
  })

  it('two tabs with persist writing at the same moment: unique ids, nothing acknowledged lost, both converge', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    const [left, right] = [await open('?persist=1', context), await open('?persist=1', context)]
    const writeLoop = (page: Page, tab: string) =>
      page.evaluate(async (tab) => {
        const ids: number[] = []
        await Promise.all(
          Array.from({ length: 25 }, async (_, i) => {
            const response = await fetch('/users', {
              method: 'POST',
              headers: {
                authorization: 'Bearer sandbox-admin-token',
                'content-type': 'application/json',
              },
              body: JSON.stringify({ name: `${tab}-${i}`, email: `${tab}-${i}@example.com` }),
            })
            if (response.status === 201) ids.push((await response.json()).data.id)
          }),
        )
        return ids
      }, tab)
    const [leftIds, rightIds] = await Promise.all([
      writeLoop(left, 'left'),
      writeLoop(right, 'right'),
    ])
    expect(leftIds).toHaveLength(25)
    expect(rightIds).toHaveLength(25)
    expect(new Set([...leftIds, ...rightIds]).size).toBe(50)
    const stored = await left.evaluate(
      () =>
        new Promise<{ snapshot: { users: { name: string }[] } }>((resolve, reject) => {
          const open = indexedDB.open('shop-sandbox')
          open.onerror = () => reject(open.error)
          open.onsuccess = () => {
            const get = open.result.transaction('data').objectStore('data').get('shop-sandbox:db')
            get.onsuccess = () => resolve(get.result)
            get.onerror = () => reject(get.error)
          }
        }),
    )
    const names = new Set(stored.snapshot.users.map((user: { name: string }) => user.name))
    for (let i = 0; i < 25; i++) {
      expect(names.has(`left-${i}`)).toBe(true)
      expect(names.has(`right-${i}`)).toBe(true)
    }
    for (const page of [left, right])
      await expect
        .poll(async () => (await pageFetch(page, '/users?pageSize=1')).body.data.total)
        .toBe(100)
  })

  it('a full storage quota: reported once in the console, every write refused 503 and undone (issue 30)', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    // What a full disk quota looks like to IndexedDB.
    await context.addInitScript(() => {
      IDBObjectStore.prototype.put = () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      }
    })
    const page = await context.newPage()
    const warnings: string[] = []
    page.on('console', (message) => {
      if (message.text().includes('cannot save the data in browser storage'))
        warnings.push(message.text())
    })
    await page.goto(`${demo.url}?persist=1`)
    await page.waitForSelector('html[data-sandbox="ready"]', { timeout: 15_000 })
    for (let i = 0; i < 3; i++) {
      const created = await pageFetch(page, '/users', {
        method: 'POST',
        body: { name: `quota-${i}`, email: `quota-${i}@example.com` },
      })
      expect(created.status).toBe(503)
      expect(created.body).toMatchObject({
        code: 50300,
        message: expect.stringMatching(/^browser storage cannot be written: QuotaExceededError/),
        data: null,
      })
    }
    // Never acknowledged, so never kept: memory holds nothing storage lacks.
    expect((await pageFetch(page, '/users?keyword=quota')).body.data.total).toBe(0)
    expect((await pageFetch(page, '/users?pageSize=1')).body.data.total).toBe(50)
    expect(warnings).toHaveLength(1)
    // A switch refused is undone whole: it left its name (and its settings) on the seed's data;
    // the settings and overrides made at run time come back too, not the scenario's first ones.
    const config = await pageFetch(page, '/__sandbox/config', {
      method: 'PATCH',
      token: null,
      body: { delay: 1 },
    })
    expect(config.status).toBe(200)
    const added = await pageFetch(page, '/__sandbox/overrides', {
      method: 'POST',
      token: null,
      body: { path: '/stubbed', response: { status: 204 } },
    })
    expect(added.status).toBe(201)
    const state = async () => ({
      info: (await pageFetch(page, '/__sandbox', { token: null })).body.data,
      overrides: (await pageFetch(page, '/__sandbox/overrides', { token: null })).body.data.list,
    })
    const before = await state()
    expect(before.overrides).toHaveLength(1)
    for (const name of ['empty', 'slow']) {
      const refused = await pageFetch(page, '/__sandbox/scenario', {
        method: 'PUT',
        token: null,
        body: { name },
      })
      expect([name, refused.status]).toEqual([name, 503])
      const after = await state()
      expect([after.info.scenario, after.info.config, after.overrides]).toEqual([
        before.info.scenario,
        before.info.config,
        before.overrides,
      ])
    }
    expect((await pageFetch(page, '/users?pageSize=1')).body.data.total).toBe(50)
  })

  it('persist: a switch in one tab is followed by the others, its name with its data', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    const [left, right] = [await open('?persist=1', context), await open('?persist=1', context)]
    const switched = await pageFetch(left, '/__sandbox/scenario', {
      method: 'PUT',
      token: null,
      body: { name: 'empty' },
    })
    expect(switched.status).toBe(200)
    // The other tab took the data alone, and went on saying (and saving) `default`.
    await expect
      .poll(async () => (await pageFetch(right, '/__sandbox', { token: null })).body.data.scenario)
      .toBe('empty')
    expect((await pageFetch(right, '/users?pageSize=1')).body.data.total).toBe(2)
    // Its reset returns to the scenario the data are in, for both tabs.
    expect(
      (await pageFetch(right, '/__sandbox/reset', { method: 'POST', token: null })).status,
    ).toBe(204)
    for (const page of [left, right]) {
      const info = (await pageFetch(page, '/__sandbox', { token: null })).body.data
      expect(info.scenario).toBe('empty')
      await expect
        .poll(async () => (await pageFetch(page, '/products?pageSize=1')).body.data.total)
        .toBe(0)
    }
    // One whose data are generated (faker, which the other tab had not loaded): followed, its
    // data made there too, so its reset works (it answered 500).
    expect(
      (
        await pageFetch(left, '/__sandbox/scenario', {
          method: 'PUT',
          token: null,
          body: { name: 'big' },
        })
      ).status,
    ).toBe(200)
    await expect
      .poll(
        async () => (await pageFetch(right, '/__sandbox', { token: null })).body.data?.scenario,
        {
          timeout: 15_000,
        },
      )
      .toBe('big')
    const resetData = await pageFetch(right, '/__sandbox/db', { method: 'DELETE', token: null })
    expect(resetData.status).toBe(204)
    expect((await pageFetch(right, '/users?pageSize=1')).body.data.total).toBeGreaterThanOrEqual(
      10_000,
    )
  }, 60_000)

  it('with persist, a write is answered only after the IndexedDB transaction holding it committed (issue 30)', async () => {
    const context = await demo.newContext()
    contexts.push(context)
    // Every readwrite transaction's commit is delayed and its moment recorded.
    await context.addInitScript(() => {
      const commits: number[] = []
      ;(window as unknown as { commits: number[] }).commits = commits
      const transaction = IDBDatabase.prototype.transaction
      IDBDatabase.prototype.transaction = function (
        this: IDBDatabase,
        ...args: Parameters<typeof transaction>
      ) {
        const made = transaction.apply(this, args)
        if (args[1] === 'readwrite')
          made.addEventListener('complete', () => commits.push(performance.now()))
        return made
      }
    })
    const page = await context.newPage()
    await page.goto(`${demo.url}?persist=1`)
    await page.waitForSelector('html[data-sandbox="ready"]', { timeout: 15_000 })
    const timing = await page.evaluate(async () => {
      const commits = (window as unknown as { commits: number[] }).commits
      const before = commits.length
      const response = await fetch('/users', {
        method: 'POST',
        headers: {
          authorization: 'Bearer sandbox-admin-token',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'committed', email: 'committed@example.com' }),
      })
      return {
        status: response.status,
        answered: performance.now(),
        commit: commits[before] ?? null,
      }
    })
    expect(timing.status).toBe(201)
    expect(timing.commit).not.toBeNull()
    expect(timing.answered).toBeGreaterThanOrEqual(timing.commit!)
  })

  it('overrides (C2) in browser mode: POST /__sandbox/overrides from the page, counted, journaled', async () => {
    const page = await open()
    const created = await pageFetch(page, '/__sandbox/overrides', {
      method: 'POST',
      token: null,
      body: { method: 'GET', path: '/users', times: 1, response: { status: 503 } },
    })
    expect(created.status).toBe(201)
    const down = await pageFetch(page, '/users?pageSize=1')
    expect(down).toMatchObject({ status: 503, body: { code: 50300, data: null } })
    expect((await pageFetch(page, '/users?pageSize=1')).status).toBe(200)
    const journal = await pageFetch(page, '/__sandbox/requests?method=GET&path=/users&status=503', {
      token: null,
    })
    expect(journal.body.data.total).toBe(1)
    expect(journal.body.data.list[0].overrideId).toBe(created.body.data.id)
  })

  it('without persist a reload starts from the seed again', async () => {
    const page = await open()
    const created = await pageFetch(page, '/users', {
      method: 'POST',
      body: { name: 'fleeting', email: 'fleeting@example.com' },
    })
    await page.reload()
    await page.waitForSelector('html[data-sandbox="ready"]')
    expect((await pageFetch(page, `/users/${created.body.data.id}`)).status).toBe(404)
  })

  it('intercepts an absolute baseUrl on another origin', async () => {
    const page = await open('?baseUrl=https://api.example.com')
    const reply = await pageFetch(page, 'https://api.example.com/users/1')
    expect(reply).toMatchObject({
      status: 200,
      body: { data: { id: 1, email: 'admin@example.com' } },
    })
    expect((await pageFetch(page, 'https://api.example.com/getUsers')).status).toBe(404)
    expect(await page.locator('#users tr').count()).toBeGreaterThan(0)
  })

  it('with baseUrl /api, serves its OpenAPI document under /api and leaves /openapi.json to the app', async () => {
    const page = await open('?baseUrl=/api')
    const document = await pageFetch(page, '/api/openapi.json')
    expect(document.status).toBe(200)
    expect(document.body.openapi).toBe('3.1.0')
    expect((await pageFetch(page, '/api/users/1')).body.data.id).toBe(1)
    const appFile = await page.evaluate(async () => {
      const response = await fetch('/openapi.json')
      return { status: response.status, text: await response.text() }
    })
    expect(appFile.text).not.toContain('"openapi"')
  })

  it('lets a person create, edit, search and delete users in the demo UI', async () => {
    const page = await open()
    await page.fill('input[name=name]', 'ui-user')
    await page.fill('input[name=email]', 'ui@example.com')
    await page.click('#save')
    await page.fill('#keyword', 'ui-user')
    await expect.poll(() => page.locator('#users tr').count()).toBe(1)
    expect(await page.locator('#users tr').textContent()).toContain('ui@example.com')
    await page.click('#users tr >> text=Edit')
    await page.fill('input[name=name]', 'ui-renamed')
    await page.click('#save')
    await page.fill('#keyword', 'ui-renamed')
    await expect.poll(() => page.locator('#users tr').count()).toBe(1)
    await page.click('#users tr >> text=Delete')
    await expect.poll(() => page.locator('#users tr').count()).toBe(0)
  })
})
