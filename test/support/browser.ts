import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { startDemoServer } from '../../demo/server.js'
import { chromiumPath, launchChromium } from './chromium.js'

export { chromiumPath, launchChromium } from './chromium.js'

export const artifacts = new URL('../artifacts/', import.meta.url)

/**
 * Whether the browser suite can run. Without Chromium it is skipped with a message saying
 * how to install it, unless SHOP_SANDBOX_REQUIRE_BROWSER is set (CI), where that is a failure.
 */
export function browserAvailable(): boolean {
  if (existsSync(chromiumPath)) return true
  const help = `Chromium not found at ${chromiumPath}: install it with 'apt-get install -y chromium' (or set CHROMIUM_PATH)`
  if (process.env.SHOP_SANDBOX_REQUIRE_BROWSER)
    throw new Error(`${help}; the browser suite is required here.`)
  console.warn(`\n⚠ browser suite SKIPPED. ${help}, then run npm test again.\n`)
  return false
}

/** Launches Chromium and serves the demo page for the current test file. */
export function useDemoInChromium() {
  const state: { browser?: Browser; demo?: Awaited<ReturnType<typeof startDemoServer>> } = {}
  beforeAll(async () => {
    await mkdir(artifacts, { recursive: true })
    state.demo = await startDemoServer(0)
    state.browser = await launchChromium()
  })
  afterAll(async () => {
    await state.browser?.close()
    await state.demo?.close()
  })
  return {
    get url() {
      return state.demo!.url
    },
    /** A fresh context: its own storage and service worker registrations. */
    newContext(): Promise<BrowserContext> {
      return state.browser!.newContext({ viewport: { width: 1280, height: 800 } })
    },
  }
}
