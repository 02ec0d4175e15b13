import type { ConsoleOptions } from '../console/mount.js'
import { mountConsole } from '../console/mount.js'

/** How `startSandbox({ console })` shows the console in the app's page. */
export interface ConsolePanelOptions {
  /** Open at start (default false: a small button opens it). */
  open?: boolean
  /**
   * The key that opens and closes it with Ctrl and Alt held (default `s`: Ctrl+Alt+S). The
   * button works as well.
   */
  key?: string
}

/** The console in the app's page: a button, and a panel that opens over the app. */
export interface ConsolePanel {
  open(): void
  close(): void
  /** Removes the button and the panel, and stops polling. */
  remove(): void
}

const panelCss = `
:host { all: initial }
.toggle { position: fixed; right: 12px; bottom: 12px; z-index: 2147483646; font: 13px system-ui, sans-serif;
  padding: 6px 10px; border-radius: 16px; border: 1px solid #8886; background: #0b62c4; color: #fff; cursor: pointer;
  box-shadow: 0 1px 4px #0004 }
.toggle:focus-visible { outline: 2px solid #6cb0ff; outline-offset: 2px }
.panel { position: fixed; inset: auto 0 0 0; height: min(75vh, 760px); z-index: 2147483647; overflow: auto;
  border-top: 2px solid #0b62c4; box-shadow: 0 -4px 16px #0003; background: Canvas }
.panel[hidden] { display: none }
.close { position: absolute; top: 6px; right: 8px; z-index: 1; font: 13px system-ui, sans-serif; cursor: pointer }
`

/**
 * Mounts the sandbox console in the app's page, in a shadow root (the app's styles and the
 * console's never meet), opened by a small button or Ctrl+Alt+<key>; it calls the in-page
 * sandbox, so nothing reaches the network and MSW logs nothing for it (issue 33).
 */
export function mountConsolePanel(
  console: ConsoleOptions,
  options: ConsolePanelOptions = {},
): ConsolePanel {
  const host = document.createElement('shop-sandbox-console')
  const shadow = host.attachShadow({ mode: 'open' })
  const style = document.createElement('style')
  style.textContent = panelCss
  const toggle = document.createElement('button')
  toggle.className = 'toggle'
  toggle.type = 'button'
  const key = (options.key ?? 's').toLowerCase()
  toggle.textContent = 'Sandbox'
  toggle.title = `shop-sandbox console (Ctrl+Alt+${key.toUpperCase()})`
  toggle.setAttribute('aria-expanded', 'false')
  const panel = document.createElement('div')
  panel.className = 'panel'
  panel.hidden = true
  panel.setAttribute('role', 'dialog')
  panel.setAttribute('aria-label', 'shop-sandbox console')
  const close = document.createElement('button')
  close.className = 'close'
  close.type = 'button'
  close.textContent = 'Close'
  panel.append(close)
  shadow.append(style, toggle, panel)
  let mounted: ReturnType<typeof mountConsole> | null = null

  const open = () => {
    // Mounted on first open: the polling starts only when someone looks.
    mounted ??= mountConsole(panel, console)
    panel.hidden = false
    toggle.setAttribute('aria-expanded', 'true')
  }
  const hide = () => {
    panel.hidden = true
    toggle.setAttribute('aria-expanded', 'false')
    toggle.focus()
  }
  toggle.onclick = () => (panel.hidden ? open() : hide())
  close.onclick = hide
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey && event.altKey && event.key.toLowerCase() === key) {
      event.preventDefault()
      if (panel.hidden) open()
      else hide()
    }
  }
  window.addEventListener('keydown', onKey)
  document.body.append(host)
  if (options.open) open()
  return {
    open,
    close: hide,
    remove() {
      window.removeEventListener('keydown', onKey)
      mounted?.stop()
      host.remove()
    },
  }
}
