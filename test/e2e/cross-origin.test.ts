import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'

const run = browserAvailable()

/**
 * CONTRACT C3 in a real browser. Chromium resolves `evil.test` and `rebind.test` to 127.0.0.1
 * (`--host-resolver-rules`), so a page "on another site" and a DNS-rebinding page both reach the
 * sandbox over the loopback interface, as they would on a developer's machine.
 */
describe.runIf(run)('a sandbox left running, visited by hostile pages in Chromium', () => {
  let browser: Browser
  let sandbox: SandboxServer
  let site: { url: (host: string) => string; close: () => void }

  beforeAll(async () => {
    sandbox = await createSandboxServer({ port: 0 })
    const page = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>a site</title>')
    })
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    const { port } = page.address() as AddressInfo
    site = { url: (host) => `http://${host}:${port}/`, close: () => page.close() }
    browser = await launchChromium([
      '--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1',
    ])
  })
  afterAll(async () => {
    await browser?.close()
    site?.close()
    await sandbox?.close()
  })

  /** What the sandbox holds, asked without a browser. */
  async function state() {
    const db = await (await fetch(`${sandbox.url}/__sandbox/db`)).json()
    const config = await (await fetch(`${sandbox.url}/__sandbox/config`)).json()
    return { users: db.data.users.length, errorRate: config.data.errorRate }
  }

  /** Every way a page can try to read or change the sandbox; what each attempt got. */
  async function attack(pageUrl: string, api: string) {
    const page = await browser.newPage()
    await page.goto(pageUrl)
    const outcome = await page.evaluate(async (api) => {
      const attempt = async (run: () => Promise<Response>) => {
        try {
          const response = await run()
          return response.type === 'opaque'
            ? 'opaque'
            : `${response.status}:${await response.text()}`
        } catch {
          return 'blocked'
        }
      }
      return {
        read: await attempt(() => fetch(`${api}/__sandbox/db`)),
        readUsers: await attempt(() =>
          fetch(`${api}/users`, { headers: { authorization: 'Bearer sandbox-admin-token' } }),
        ),
        wipe: await attempt(() =>
          fetch(`${api}/__sandbox/db`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ users: [], products: [], orders: [] }),
          }),
        ),
        // A "simple" request needs no preflight: only the server's Origin check stops it.
        blindReset: await attempt(() =>
          fetch(`${api}/__sandbox/db`, { method: 'DELETE', mode: 'no-cors' }),
        ),
        blindConfig: await attempt(() =>
          fetch(`${api}/__sandbox/config`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ errorRate: 1 }),
          }),
        ),
        blindCreate: await attempt(() =>
          fetch(`${api}/sessions`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ email: 'admin@example.com', password: 'password' }),
          }),
        ),
      }
    }, api)
    await page.close()
    return outcome
  }

  it('a page on another origin can neither read nor change anything', async () => {
    const before = await state()
    const outcome = await attack(site.url('evil.test'), sandbox.url)
    expect(outcome.read).toBe('blocked')
    expect(outcome.readUsers).toBe('blocked')
    expect(outcome.wipe).toBe('blocked')
    expect(await state()).toEqual(before)
    expect(before.users).toBe(50)
    const journal = await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()
    expect(journal.data.list.filter((entry: { status: number }) => entry.status !== 403)).toEqual(
      [],
    )
  })

  it('a DNS-rebinding page (its name now resolves to 127.0.0.1, same port) is refused by the Host check', async () => {
    const port = new URL(sandbox.url).port
    const page = await browser.newPage()
    const response = await page.goto(`http://rebind.test:${port}/__sandbox/db`)
    expect(response?.status()).toBe(403)
    expect(await response?.text()).toContain("host 'rebind.test")
    const outcome = await page.evaluate(async () => {
      const wipe = await fetch('/__sandbox/db', { method: 'DELETE' })
      return wipe.status
    })
    await page.close()
    expect(outcome).toBe(403)
    expect((await state()).users).toBe(50)
  })

  it('a page on http://localhost:<port> still works', async () => {
    const page = await browser.newPage()
    await page.goto(site.url('localhost'))
    const outcome = await page.evaluate(async (api) => {
      const response = await fetch(`${api}/users?pageSize=1`, {
        headers: { authorization: 'Bearer sandbox-admin-token' },
      })
      return { status: response.status, body: await response.json() }
    }, sandbox.url)
    await page.close()
    expect(outcome.status).toBe(200)
    expect(outcome.body.data.total).toBe(50)
  })
})
