/* eslint-disable @typescript-eslint/no-explicit-any -- the control API's JSON, read as the page reads it */
/**
 * The sandbox console: shows and steers a sandbox through its control API and its own API,
 * nothing else. One function, with no imports and nothing from the module around it, because it
 * runs in two places: the Node server sends its source as `/__sandbox/ui/console.js` (the page's
 * only script, under a strict Content-Security-Policy), and `startSandbox({ console: true })`
 * calls it in the app's page, inside a shadow root, against the sandbox in the page (issue 33).
 */

/** Where the console finds its sandbox, and how it calls it. */
export interface ConsoleOptions {
  /** The origin the control API (`/__sandbox`) and the API answer on; `''` for the page's own. */
  origin: string
  /** How to call them: the page's `fetch` on the server; the in-page sandbox in browser mode. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** A link to the API reference, or null when there is none. */
  docs?: string | null
  /** Poll the journal every this many ms (default 1000). */
  interval?: number
}

/** A mounted console; `stop()` ends its polling. */
export interface MountedConsole {
  stop(): void
}

export function mountConsole(
  container: HTMLElement | ShadowRoot,
  options: ConsoleOptions,
): MountedConsole {
  const call = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init))
  const css = `
.sbx { --fg: #1d2125; --bg: #fff; --muted: #5f6b76; --line: #d8dde2; --panel: #f5f7f9; --accent: #0b62c4;
  --ok: #12723a; --warn: #9a5b00; --bad: #b3261e; color: var(--fg); background: var(--bg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color-scheme: light dark; min-height: 100% }
@media (prefers-color-scheme: dark) { .sbx { --fg: #e4e7ea; --bg: #15181b; --muted: #9aa5b1; --line: #2e353c;
  --panel: #1d2227; --accent: #6cb0ff; --ok: #5fd08b; --warn: #f0b35a; --bad: #ff8a80 } }
.sbx * { box-sizing: border-box }
.sbx header { display: flex; flex-wrap: wrap; gap: .5rem .75rem; align-items: center; padding: .6rem .75rem;
  border-bottom: 1px solid var(--line); background: var(--panel) }
.sbx h1 { font-size: 1rem; margin: 0 .5rem 0 0 } .sbx h2 { font-size: .95rem; margin: 0 0 .5rem }
.sbx main { display: grid; gap: .75rem; padding: .75rem; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr) }
.sbx section { border: 1px solid var(--line); border-radius: 6px; padding: .6rem; min-width: 0; margin-bottom: .75rem }
.sbx button, .sbx select, .sbx input, .sbx textarea { font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: .25rem .5rem; max-width: 100% }
.sbx button { cursor: pointer } .sbx button:hover { border-color: var(--accent) }
.sbx :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px }
.sbx table { width: 100%; border-collapse: collapse; font-size: 13px }
.sbx th, .sbx td { text-align: left; padding: .2rem .4rem; border-bottom: 1px solid var(--line); white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; max-width: 18rem }
.sbx tbody tr[data-id] { cursor: pointer } .sbx tbody tr[data-id]:hover { background: var(--panel) }
.sbx .counts { display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin-bottom: .5rem } .sbx .count b { font-size: 1.3rem; display: block }
.sbx .s2 { color: var(--ok) } .sbx .s3 { color: var(--accent) } .sbx .s4 { color: var(--warn) } .sbx .s5, .sbx .s0 { color: var(--bad) }
.sbx .row { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-bottom: .5rem } .sbx .muted { color: var(--muted) }
.sbx details { border-bottom: 1px solid var(--line); padding: .2rem 0 }
.sbx summary { cursor: pointer; display: flex; flex-wrap: wrap; gap: .25rem .6rem; font-size: 13px; align-items: baseline }
.sbx summary .path { flex: 1 1 10rem; min-width: 0; overflow-wrap: anywhere }
.sbx .badge { font-size: 11px; border: 1px solid currentColor; border-radius: 3px; padding: 0 .3rem }
.sbx pre { margin: .25rem 0; padding: .4rem; background: var(--panel); border-radius: 4px; overflow: auto; max-height: 14rem; font-size: 12px }
.sbx #journal { max-height: 28rem; overflow: auto }
.sbx label { display: inline-flex; flex-wrap: wrap; gap: .3rem; align-items: center; max-width: 100%; min-width: 0 }
.sbx label > * { min-width: 0 } .sbx input[type=file] { width: 15rem }
.sbx #status { margin-left: auto } .sbx .scroll { overflow-x: auto }
.sbx textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 12px }
.sbx #editor[hidden] { display: none } .sbx #editor { border-color: var(--accent) }
@media (max-width: 900px) { .sbx main { grid-template-columns: minmax(0, 1fr) } }
@media (max-width: 480px) { .sbx header { padding: .5rem } .sbx main { padding: .5rem } .sbx th, .sbx td { max-width: 9rem } }
`
  const markup = `
<div class="sbx" data-console="loading">
<header>
  <h1>shop-sandbox console</h1>
  <label>Sandbox <select id="sandbox" aria-label="Sandbox (X-Sandbox-Id)"></select></label>
  <input id="sandbox-search" type="search" size="10" placeholder="find a sandbox" aria-label="Find a sandbox by its X-Sandbox-Id">
  <button id="sandbox-more" aria-label="More sandboxes">more…</button>
  <button id="reset">Reset data</button>
  <button id="reset-all" title="Data, overrides and settings back to the scenario's">Reset to scenario</button>
  <button id="clear">Clear journal</button>
  <button id="download">Download data</button>
  <label><span>Load file</span><input id="load" type="file" accept="application/json,.json"></label>
  <a id="docs-link" href="/docs">API reference</a>
  <span id="status" class="muted" role="status"></span>
</header>
<main>
  <div>
    <section aria-labelledby="data-title">
      <h2 id="data-title">Data</h2>
      <div class="counts" id="counts"></div>
      <div class="row">
        <select id="collection" aria-label="Collection"></select>
        <input id="search" type="search" placeholder="Search" aria-label="Search the collection">
        <button id="prev" aria-label="Previous page">‹</button><span id="pageinfo" class="muted"></span><button id="next" aria-label="Next page">›</button>
        <button id="refresh">Refresh</button>
        <button id="new">New record</button>
      </div>
      <section id="editor" hidden aria-labelledby="editor-title">
        <h2 id="editor-title">Record</h2>
        <textarea id="editor-text" rows="10" aria-label="The record as JSON"></textarea>
        <div class="row"><button id="editor-save">Save</button><button id="editor-delete">Delete</button><button id="editor-cancel">Cancel</button>
          <span id="editor-error" class="s5" role="alert"></span></div>
      </section>
      <div class="scroll"><table><thead id="thead"></thead><tbody id="rows"></tbody></table></div>
    </section>
    <section aria-labelledby="journal-title">
      <h2 id="journal-title">Requests <span class="muted" id="journal-total"></span></h2>
      <div class="row">
        <input id="f-method" placeholder="method" size="7" aria-label="Filter by method">
        <input id="f-path" placeholder="/users/{user_id}" aria-label="Filter by path or route template">
        <input id="f-status" placeholder="status" size="6" aria-label="Filter by status">
      </div>
      <div id="journal" aria-live="polite"></div>
    </section>
  </div>
  <div>
    <section aria-labelledby="scenario-title">
      <h2 id="scenario-title">Scenario <span class="muted" id="scenario-current"></span></h2>
      <div class="scroll"><table><tbody id="scenarios"></tbody></table></div>
    </section>
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div class="row"><label>Delay <input id="delay" size="9" placeholder="0 or 100-400"></label><span class="muted">ms</span></div>
      <div class="row"><label>Error rate <input id="errorRate" type="number" min="0" max="1" step="0.05"></label>
        <label>Drop rate <input id="dropRate" type="number" min="0" max="1" step="0.05"></label></div>
      <div class="row"><label><input id="strict" type="checkbox"> strict</label><label><input id="auth" type="checkbox"> auth</label></div>
    </section>
    <section aria-labelledby="overrides-title">
      <h2 id="overrides-title">Overrides</h2>
      <form id="override-form">
        <div class="row">
          <select id="o-method" aria-label="Method"><option value="">any</option><option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option></select>
          <input id="o-path" required placeholder="/users/{user_id}" aria-label="Path">
          <input id="o-times" type="number" min="1" placeholder="times" style="width:5rem" aria-label="Times">
          <input id="o-status" type="number" min="200" max="599" value="503" style="width:5rem" aria-label="Status">
        </div>
        <div class="row"><textarea id="o-headers" rows="1" placeholder='match headers, e.g. {"X-Client": "ios"}' aria-label="Match request headers (JSON)"></textarea></div>
        <div class="row"><textarea id="o-body" rows="1" placeholder='match body, e.g. {"items": [{"productId": 3}]}' aria-label="Match request body (JSON)"></textarea></div>
        <div class="row"><textarea id="o-extra" rows="2" placeholder='more response fields, e.g. {"data": [], "delayMs": 500}' aria-label="More response fields (JSON)"></textarea></div>
        <div class="row"><textarea id="o-sequence" rows="2" placeholder='or a sequence of responses, e.g. [{"status": 503}, {"status": 200, "data": []}]' aria-label="A sequence of responses (JSON array)"></textarea></div>
        <div class="row"><button type="submit">Add override</button><span id="o-error" class="s5" role="alert"></span></div>
      </form>
      <div class="scroll"><table><tbody id="overrides"></tbody></table></div>
    </section>
  </div>
</main>
</div>`
  const style = document.createElement('style')
  style.textContent = css
  const holder = document.createElement('div')
  holder.innerHTML = markup
  const rootElement = holder.firstElementChild as HTMLElement
  container.append(style, rootElement)

  const $ = <T extends HTMLElement = HTMLInputElement>(id: string) =>
    rootElement.querySelector(`#${id}`) as T
  const active = () => (container as Document | ShadowRoot).activeElement ?? document.activeElement
  const docsLink = $<HTMLAnchorElement>('docs-link')
  if (options.docs === null) docsLink.remove()
  else if (options.docs) docsLink.href = options.docs

  interface Info {
    counts: Record<string, number>
    api: {
      basePath: string
      resources: Array<{ name: string; singular: string }>
      tokens: Array<{ token: string; admin: boolean }>
    }
    config: { auth: boolean }
  }
  const state = {
    sandbox: '',
    sandboxPage: 1,
    page: 1,
    pageSize: 15,
    data: null as Record<string, Array<Record<string, unknown>>> | null,
    info: null as Info | null,
    lastJournalId: 0,
    editing: null as { collection: string; id: number | null } | null,
  }
  const status = (text: string) => ($('status').textContent = text)
  const sandboxHeaders = (extra: Record<string, string> = {}) =>
    state.sandbox ? { ...extra, 'X-Sandbox-Id': state.sandbox } : extra

  /** A call to the control API; the payload, or an Error with the API's message. */
  async function api(method: string, path: string, body?: unknown): Promise<any> {
    const init: RequestInit = {
      method,
      headers: sandboxHeaders(body === undefined ? {} : { 'content-type': 'application/json' }),
    }
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body)
    return parse(await call(`${options.origin}/__sandbox${path}`, init))
  }
  async function parse(response: Response): Promise<any> {
    const text = await response.text()
    const parsed = text ? JSON.parse(text) : null
    if (!response.ok) throw new Error((parsed && parsed.message) || `${response.status}`)
    return parsed && parsed.data
  }
  /** A call to the API itself, as the first admin token (or none, with auth off). */
  async function resourceCall(method: string, path: string, body?: unknown): Promise<any> {
    const info = state.info!
    const admin = info.api.tokens.find((token) => token.admin)
    const headers: Record<string, string> = sandboxHeaders(
      body === undefined ? {} : { 'content-type': 'application/json' },
    )
    if (admin) headers.authorization = `Bearer ${admin.token}`
    const init: RequestInit = { method, headers }
    if (body !== undefined) init.body = JSON.stringify(body)
    return parse(await call(`${options.origin}${info.api.basePath}${path}`, init))
  }
  const text = (value: unknown) =>
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value)
  function cell(tag: string, value: unknown, className?: string) {
    const element = document.createElement(tag)
    element.textContent = text(value)
    if (className) element.className = className
    return element
  }
  function block(title: string, value: unknown) {
    return [cell('div', title, 'muted'), cell('pre', JSON.stringify(value, null, 2))]
  }

  async function loadSandboxes(more = false) {
    if (more) state.sandboxPage++
    const params = new URLSearchParams({ pageSize: '50', page: String(state.sandboxPage) })
    const search = $('sandbox-search').value.trim()
    if (search) params.set('search', search)
    let found = await api('GET', `/sandboxes?${params}`)
    if (found.list.length === 0 && state.sandboxPage > 1) {
      state.sandboxPage = 1
      params.set('page', '1')
      found = await api('GET', `/sandboxes?${params}`)
    }
    const select = $<HTMLSelectElement>('sandbox')
    const names: string[] = found.list.map(
      (one: { sandboxId: string | null }) => one.sandboxId ?? '',
    )
    if (!names.includes(state.sandbox)) names.unshift(state.sandbox)
    select.replaceChildren(...names.map((name) => new Option(name === '' ? 'default' : name, name)))
    select.value = state.sandbox
    $('sandbox-more').hidden = found.total <= 50
    $('sandbox-more').textContent = `more… (${found.total})`
  }
  async function loadData() {
    const [data, info] = await Promise.all([api('GET', '/db'), api('GET', '')])
    state.data = data
    state.info = info
    const names = Object.keys(data).filter((name) => name !== 'nextIds')
    const select = $<HTMLSelectElement>('collection')
    if ([...select.options].map((option) => option.value).join() !== names.join()) {
      const chosen = select.value
      select.replaceChildren(...names.map((name) => new Option(name, name)))
      if (names.includes(chosen)) select.value = chosen
    }
    $('counts').replaceChildren(
      ...names.map((name) => {
        const box = document.createElement('div')
        box.className = 'count'
        box.dataset.collection = name
        box.append(cell('b', data[name].length), name)
        return box
      }),
    )
    const canWrite =
      !info.config.auth || info.api.tokens.some((token: { admin: boolean }) => token.admin)
    $('new').hidden = !canWrite
    renderTable()
  }
  function renderTable() {
    if (!state.data) return
    const collection = $<HTMLSelectElement>('collection').value
    const records = state.data[collection] ?? []
    const query = $('search').value.trim().toLowerCase()
    const matches = query
      ? records.filter((record) => JSON.stringify(record).toLowerCase().includes(query))
      : records
    const pages = Math.max(1, Math.ceil(matches.length / state.pageSize))
    state.page = Math.min(Math.max(1, state.page), pages)
    const shown = matches.slice((state.page - 1) * state.pageSize, state.page * state.pageSize)
    const columns = records.length
      ? Object.keys(records[0]!).filter(
          (key) => typeof records[0]![key] !== 'object' || records[0]![key] === null,
        )
      : []
    const head = document.createElement('tr')
    head.append(...columns.map((column) => cell('th', column)))
    $('thead').replaceChildren(head)
    $('rows').replaceChildren(
      ...shown.map((record) => {
        const row = document.createElement('tr')
        row.dataset.id = String(record.id)
        row.tabIndex = 0
        row.title = 'Edit this record'
        row.append(...columns.map((column) => cell('td', record[column])))
        row.onclick = () => openEditor(collection, record)
        row.onkeydown = (event) => {
          if (event.key === 'Enter') openEditor(collection, record)
        }
        return row
      }),
    )
    $('pageinfo').textContent = `${state.page} / ${pages} (${matches.length})`
  }
  const READ_ONLY = new Set(['id', 'createdAt', 'updatedAt'])
  function openEditor(collection: string, record: Record<string, unknown> | null) {
    state.editing = { collection, id: record ? (record.id as number) : null }
    const sample = record ?? state.data?.[collection]?.[0] ?? {}
    const shown = Object.fromEntries(
      Object.entries(sample).filter(([key]) => (record ? true : !READ_ONLY.has(key))),
    )
    $<HTMLTextAreaElement>('editor-text').value = JSON.stringify(shown, null, 2)
    $('editor-title').textContent = record
      ? `${collection} ${String(record.id)}: edit, then Save (PUT)`
      : `New in ${collection}: fill in, then Save (POST)`
    $('editor-delete').hidden = !record
    $('editor-error').textContent = ''
    $('editor').hidden = false
    $<HTMLTextAreaElement>('editor-text').focus()
  }
  function closeEditor() {
    state.editing = null
    $('editor').hidden = true
  }
  async function saveEditor() {
    const editing = state.editing
    if (!editing) return
    $('editor-error').textContent = ''
    let body: Record<string, unknown>
    try {
      body = JSON.parse($<HTMLTextAreaElement>('editor-text').value)
    } catch {
      $('editor-error').textContent = 'not valid JSON'
      return
    }
    try {
      if (editing.id === null) await resourceCall('POST', `/${editing.collection}`, body)
      else await resourceCall('PUT', `/${editing.collection}/${editing.id}`, body)
      closeEditor()
      status('saved')
      await loadData()
    } catch (error) {
      // The API's own words: a 422 names each failing field.
      $('editor-error').textContent = (error as Error).message
    }
  }
  async function deleteRecord() {
    const editing = state.editing
    if (!editing || editing.id === null) return
    try {
      await resourceCall('DELETE', `/${editing.collection}/${editing.id}`)
      closeEditor()
      status('deleted')
      await loadData()
    } catch (error) {
      $('editor-error').textContent = (error as Error).message
    }
  }

  async function loadJournal() {
    const params = new URLSearchParams({ pageSize: '100', order: 'desc' })
    for (const name of ['method', 'path', 'status']) {
      const value = $(`f-${name}`).value.trim()
      if (value) params.set(name, value)
    }
    const found = await api('GET', `/requests?${params}`)
    $('journal-total').textContent = `(${found.total})`
    const open = new Set(
      [...rootElement.querySelectorAll<HTMLElement>('#journal details[open]')].map(
        (el) => el.dataset.id,
      ),
    )
    $('journal').replaceChildren(
      ...found.list.map((entry: any) => {
        const details = document.createElement('details')
        details.dataset.id = String(entry.id)
        if (open.has(String(entry.id))) details.open = true
        const summary = document.createElement('summary')
        const query = Object.keys(entry.query).length ? `?${new URLSearchParams(entry.query)}` : ''
        summary.append(
          cell('span', entry.method),
          cell('span', entry.path + query, 'path'),
          cell(
            'span',
            entry.status || (entry.proxied ? 'network' : 'reset'),
            `s${String(entry.status).charAt(0)}`,
          ),
          cell('span', entry.at.slice(11, 23), 'muted'),
          cell('span', `${entry.durationMs} ms`, 'muted'),
        )
        if (entry.overrideId)
          summary.append(cell('span', `override #${entry.overrideId}`, 'badge s3'))
        if (entry.nearMiss)
          summary.append(cell('span', `near miss #${entry.nearMiss.overrideId}`, 'badge s4'))
        if (entry.proxied) summary.append(cell('span', 'proxied', 'badge muted'))
        details.append(summary)
        if (entry.nearMiss)
          details.append(
            cell(
              'div',
              `override ${entry.nearMiss.overrideId} did not match: ${entry.nearMiss.reason}`,
              's4',
            ),
          )
        details.append(...block('request headers', entry.requestHeaders))
        if (entry.requestBody !== undefined)
          details.append(...block('request body', entry.requestBody))
        details.append(...block('response headers', entry.responseHeaders))
        if (entry.responseBody !== undefined)
          details.append(...block('response body', entry.responseBody))
        return details
      }),
    )
    // A write the journal shows since the last look changes the data: show it.
    const newest = found.list[0]?.id ?? 0
    const changed = found.list.some(
      (entry: any) =>
        entry.id > state.lastJournalId &&
        !['GET', 'HEAD', 'OPTIONS'].includes(entry.method) &&
        entry.status >= 200 &&
        entry.status < 300 &&
        !entry.overrideId,
    )
    const first = state.lastJournalId === 0
    state.lastJournalId = Math.max(state.lastJournalId, newest)
    if (changed && !first) await loadData()
  }
  async function loadScenarios() {
    const [list, current] = await Promise.all([
      api('GET', '/scenarios?pageSize=100'),
      api('GET', '/scenario'),
    ])
    const name = current.scenario.name
    $('scenario-current').textContent = name
    $('scenarios').replaceChildren(
      ...list.list.map((scenario: any) => {
        const row = document.createElement('tr')
        row.dataset.scenario = scenario.name
        const use = document.createElement('button')
        use.textContent = scenario.name === name ? 'In use' : 'Use'
        use.disabled = scenario.name === name
        use.setAttribute('aria-label', `Use scenario ${scenario.name}`)
        use.onclick = () =>
          act(() => api('PUT', '/scenario', { name: scenario.name }), refreshAll, loadScenarios)
        const actions = document.createElement('td')
        actions.append(use)
        row.append(cell('th', scenario.name), cell('td', scenario.description, 'muted'), actions)
        return row
      }),
    )
  }
  async function loadSettings() {
    const config = await api('GET', '/config')
    const delay = config.delay
    // A field being edited keeps what the person is typing.
    const set = (id: string, property: 'value' | 'checked', value: unknown) => {
      const element = $(id)
      if (active() !== element) (element as any)[property] = value
    }
    set('delay', 'value', typeof delay === 'number' ? delay : `${delay.min}-${delay.max}`)
    set('errorRate', 'value', config.errorRate)
    set('dropRate', 'value', config.dropRate)
    set('strict', 'checked', config.strict)
    set('auth', 'checked', config.auth)
  }
  async function loadOverrides() {
    const list = (await api('GET', '/overrides?pageSize=100')).list
    $('overrides').replaceChildren(
      ...list.map((override: any) => {
        const row = document.createElement('tr')
        const remove = document.createElement('button')
        remove.textContent = 'Remove'
        remove.setAttribute('aria-label', `Remove override ${override.id}`)
        remove.onclick = () => act(() => api('DELETE', `/overrides/${override.id}`), loadOverrides)
        const actions = document.createElement('td')
        actions.append(remove)
        const conditions = [
          override.query ? `query ${JSON.stringify(override.query)}` : '',
          override.headers ? `headers ${JSON.stringify(override.headers)}` : '',
          override.body !== undefined ? `body ${JSON.stringify(override.body)}` : '',
        ]
          .filter(Boolean)
          .join(' ')
        const answer = override.responses
          ? `sequence of ${override.responses.length}, next ${override.next + 1}`
          : 'drop' in override.response
            ? 'drop'
            : override.response.status
        row.append(
          cell('td', `#${override.id}`),
          cell('td', override.method || 'any'),
          cell('td', override.path),
          cell('td', conditions),
          cell('td', answer),
          cell('td', override.remaining === undefined ? '∞' : `${override.remaining} left`),
          actions,
        )
        return row
      }),
    )
  }
  async function act(run: () => Promise<unknown>, ...after: Array<() => Promise<unknown>>) {
    try {
      await run()
      status('done')
      for (const step of after) await step()
    } catch (error) {
      status(String((error as Error).message || error))
    }
  }
  const refreshAll = () => Promise.all([loadData(), loadJournal(), loadSettings(), loadOverrides()])
  const setting = (id: string, value: unknown) =>
    act(() => api('PATCH', '/config', { [id]: value }), loadSettings)

  $<HTMLSelectElement>('sandbox').onchange = (event) => {
    state.sandbox = (event.target as HTMLSelectElement).value
    state.page = 1
    state.lastJournalId = 0
    closeEditor()
    act(refreshAll, loadScenarios)
  }
  $('sandbox-search').oninput = () => {
    state.sandboxPage = 1
    act(() => loadSandboxes())
  }
  $('sandbox-more').onclick = () => act(() => loadSandboxes(true))
  $('reset').onclick = () => act(() => api('DELETE', '/db'), loadData)
  $('reset-all').onclick = () => act(() => api('POST', '/reset'), refreshAll, loadScenarios)
  $('clear').onclick = () => act(() => api('DELETE', '/requests'), loadJournal)
  $('download').onclick = () =>
    act(async () => {
      const data = await api('GET', '/db')
      const link = document.createElement('a')
      link.href = URL.createObjectURL(
        new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }),
      )
      link.download = `sandbox-data${state.sandbox ? `-${state.sandbox}` : ''}.json`
      link.click()
      URL.revokeObjectURL(link.href)
    })
  $('load').onchange = (event) => {
    const file = (event.target as HTMLInputElement).files?.[0]
    if (file) act(async () => api('PUT', '/db', await file.text()), loadData)
  }
  $<HTMLSelectElement>('collection').onchange = () => {
    state.page = 1
    closeEditor()
    renderTable()
  }
  $('search').oninput = () => {
    state.page = 1
    renderTable()
  }
  $('prev').onclick = () => {
    state.page--
    renderTable()
  }
  $('next').onclick = () => {
    state.page++
    renderTable()
  }
  $('refresh').onclick = () => act(loadData)
  $('new').onclick = () => openEditor($<HTMLSelectElement>('collection').value, null)
  $('editor-save').onclick = () => void saveEditor()
  $('editor-delete').onclick = () => void deleteRecord()
  $('editor-cancel').onclick = () => closeEditor()
  for (const id of ['f-method', 'f-path', 'f-status']) $(id).oninput = () => act(loadJournal)
  $('delay').onchange = () =>
    setting('delay', /^\d+$/.test($('delay').value) ? Number($('delay').value) : $('delay').value)
  for (const id of ['errorRate', 'dropRate'])
    $(id).onchange = () => setting(id, Number($(id).value))
  for (const id of ['strict', 'auth']) $(id).onchange = () => setting(id, $(id).checked)
  $<HTMLFormElement>('override-form').onsubmit = (event) => {
    event.preventDefault()
    $('o-error').textContent = ''
    const json = (id: string, what: string) => {
      const value = $<HTMLTextAreaElement>(id).value.trim()
      if (!value) return undefined
      try {
        return JSON.parse(value)
      } catch {
        throw new Error(`${what}: not valid JSON`)
      }
    }
    let body: Record<string, unknown>
    try {
      const sequence = json('o-sequence', 'sequence')
      body = { path: $('o-path').value.trim() }
      if (sequence !== undefined) body.responses = sequence
      else
        body.response = { status: Number($('o-status').value), ...json('o-extra', 'more fields') }
      const headers = json('o-headers', 'headers')
      if (headers !== undefined) body.headers = headers
      const match = json('o-body', 'body')
      if (match !== undefined) body.body = match
    } catch (error) {
      $('o-error').textContent = (error as Error).message
      return
    }
    if ($<HTMLSelectElement>('o-method').value) body.method = $<HTMLSelectElement>('o-method').value
    if ($('o-times').value) body.times = Number($('o-times').value)
    api('POST', '/overrides', body).then(
      loadOverrides,
      (error: Error) => ($('o-error').textContent = error.message),
    )
  }

  const interval = options.interval ?? 1000
  let stopped = false
  const timers = [
    setInterval(() => {
      if (stopped) return
      loadJournal().catch(() => {})
      loadOverrides().catch(() => {})
    }, interval),
    setInterval(() => {
      if (stopped) return
      loadSandboxes().catch(() => {})
      loadScenarios().catch(() => {})
      api('GET', '')
        .then((info) => {
          const shown = [...rootElement.querySelectorAll('#counts .count b')].map((el) =>
            Number(el.textContent),
          )
          if (shown.join() !== Object.values(info.counts).join()) return loadData()
        })
        .catch(() => {})
    }, interval * 2),
  ]
  loadSandboxes()
    .then(refreshAll)
    .then(loadScenarios)
    .then(
      () => {
        status('live')
        rootElement.dataset.console = 'ready'
      },
      (error) => status(String(error.message || error)),
    )
  return {
    stop() {
      stopped = true
      for (const timer of timers) clearInterval(timer)
    },
  }
}
