import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FrameHeaders } from './respond.js'

/**
 * `GET /__sandbox/ui`: the sandbox console, one self-contained page (no CDN, no fonts) that
 * shows and steers the sandbox through the control API only: counts and tables, the live
 * request journal, the runtime settings, overrides, reset, download and load.
 */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shop-sandbox console</title>
<link rel="icon" href="data:,">
<style>
:root { color-scheme: light dark; --fg: #1d2125; --bg: #fff; --muted: #5f6b76; --line: #d8dde2; --panel: #f5f7f9;
  --accent: #0b62c4; --ok: #12723a; --warn: #9a5b00; --bad: #b3261e; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7ea; --bg: #15181b; --muted: #9aa5b1; --line: #2e353c; --panel: #1d2227;
  --accent: #6cb0ff; --ok: #5fd08b; --warn: #f0b35a; --bad: #ff8a80 } }
* { box-sizing: border-box } body { margin: 0; color: var(--fg); background: var(--bg) }
header { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel) }
header h1 { font-size: 1rem; margin: 0 1rem 0 0 } main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr) }
section { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; min-width: 0 } h2 { font-size: .95rem; margin: 0 0 .5rem }
button, select, input, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .25rem .5rem }
button { cursor: pointer } button:hover { border-color: var(--accent) } :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px }
table { width: 100%; border-collapse: collapse; font-size: 13px } th, td { text-align: left; padding: .2rem .4rem; border-bottom: 1px solid var(--line); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 18rem }
.counts { display: flex; gap: 1rem; margin-bottom: .5rem } .count b { font-size: 1.3rem; display: block }
.s2 { color: var(--ok) } .s3 { color: var(--accent) } .s4 { color: var(--warn) } .s5, .s0 { color: var(--bad) }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .5rem } .muted { color: var(--muted) }
details { border-bottom: 1px solid var(--line); padding: .2rem 0 } summary { cursor: pointer; display: grid; grid-template-columns: 4.5rem 1fr 3rem 6rem 4.5rem; gap: .5rem; font-size: 13px }
pre { margin: .25rem 0; padding: .4rem; background: var(--panel); border-radius: 4px; overflow: auto; max-height: 14rem; font-size: 12px }
#journal { max-height: 28rem; overflow: auto } label { display: inline-flex; gap: .3rem; align-items: center }
#status { margin-left: auto } .scroll { overflow-x: auto } @media (max-width: 900px) { main { grid-template-columns: 1fr } }
</style>
</head>
<body>
<header>
  <h1>shop-sandbox console</h1>
  <label>Sandbox <select id="sandbox" aria-label="Sandbox (X-Sandbox-Id)"></select></label>
  <button id="reset">Reset data</button>
  <button id="clear">Clear journal</button>
  <button id="download">Download data</button>
  <label><span>Load file</span><input id="load" type="file" accept="application/json,.json"></label>
  <a href="/docs">API reference</a>
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
      </div>
      <div class="scroll"><table><thead id="thead"></thead><tbody id="rows"></tbody></table></div>
    </section>
    <section aria-labelledby="journal-title" style="margin-top:1rem">
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
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div class="row"><label>Delay <input id="delay" size="9" placeholder="0 or 100-400"></label><span class="muted">ms</span></div>
      <div class="row"><label>Error rate <input id="errorRate" type="number" min="0" max="1" step="0.05"></label>
        <label>Drop rate <input id="dropRate" type="number" min="0" max="1" step="0.05"></label></div>
      <div class="row"><label><input id="strict" type="checkbox"> strict</label><label><input id="auth" type="checkbox"> auth</label></div>
    </section>
    <section aria-labelledby="overrides-title" style="margin-top:1rem">
      <h2 id="overrides-title">Overrides</h2>
      <form id="override-form">
        <div class="row">
          <select id="o-method" aria-label="Method"><option value="">any</option><option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option></select>
          <input id="o-path" required placeholder="/users/{user_id}" aria-label="Path">
          <input id="o-times" type="number" min="1" placeholder="times" style="width:5rem" aria-label="Times">
          <input id="o-status" type="number" min="100" max="599" value="503" style="width:5rem" aria-label="Status">
        </div>
        <div class="row"><textarea id="o-extra" rows="2" style="width:100%" placeholder='optional response fields as JSON, e.g. {"data": [], "delayMs": 500}' aria-label="More response fields (JSON)"></textarea></div>
        <div class="row"><button type="submit">Add override</button><span id="o-error" class="s5" role="alert"></span></div>
      </form>
      <table><tbody id="overrides"></tbody></table>
    </section>
  </div>
</main>
<script src="/__sandbox/ui/console.js"></script>
</body>
</html>
`

const script = `'use strict'
const $ = (id) => document.getElementById(id)
const state = { sandbox: '', page: 1, pageSize: 15, data: null, lastJournalId: 0 }
const status = (text) => ($('status').textContent = text)
function headers(extra) {
  const h = Object.assign({}, extra)
  if (state.sandbox) h['X-Sandbox-Id'] = state.sandbox
  return h
}
async function api(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) }
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body)
  const response = await fetch('/__sandbox' + path, init)
  const text = await response.text()
  const parsed = text ? JSON.parse(text) : null
  if (!response.ok) throw new Error((parsed && parsed.message) || response.status + '')
  return parsed && parsed.data
}
const text = (value) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value))
function cell(tag, value, cls) { const el = document.createElement(tag); el.textContent = text(value); if (cls) el.className = cls; return el }

async function loadSandboxes() {
  const list = (await api('GET', '/sandboxes?pageSize=100')).list
  const select = $('sandbox')
  const current = state.sandbox
  select.replaceChildren(...list.map((one) => {
    const option = document.createElement('option')
    option.value = one.sandboxId || ''
    option.textContent = one.sandboxId ? one.sandboxId : 'default'
    return option
  }))
  select.value = current
}
async function loadData() {
  state.data = await api('GET', '/db')
  // The collections are the data document's keys: every resource of this sandbox.
  const names = Object.keys(state.data).filter((name) => name !== 'nextIds')
  const select = $('collection')
  if ([...select.options].map((option) => option.value).join() !== names.join()) {
    const chosen = select.value
    select.replaceChildren(...names.map((name) => new Option(name, name)))
    if (names.includes(chosen)) select.value = chosen
  }
  const counts = $('counts')
  counts.replaceChildren(...names.map((name) => {
    const box = document.createElement('div')
    box.className = 'count'
    box.dataset.collection = name
    const number = document.createElement('b')
    number.textContent = state.data[name].length
    box.append(number, name)
    return box
  }))
  renderTable()
}
function renderTable() {
  if (!state.data) return
  const records = state.data[$('collection').value]
  const query = $('search').value.trim().toLowerCase()
  const matches = query ? records.filter((record) => JSON.stringify(record).toLowerCase().includes(query)) : records
  const pages = Math.max(1, Math.ceil(matches.length / state.pageSize))
  state.page = Math.min(Math.max(1, state.page), pages)
  const shown = matches.slice((state.page - 1) * state.pageSize, state.page * state.pageSize)
  const columns = records.length ? Object.keys(records[0]).filter((key) => key !== 'items') : []
  const head = document.createElement('tr')
  head.append(...columns.map((column) => cell('th', column)))
  $('thead').replaceChildren(head)
  $('rows').replaceChildren(...shown.map((record) => {
    const row = document.createElement('tr')
    row.append(...columns.map((column) => cell('td', record[column])))
    return row
  }))
  $('pageinfo').textContent = state.page + ' / ' + pages + ' (' + matches.length + ')'
}
async function loadJournal() {
  const params = new URLSearchParams({ pageSize: '100' })
  for (const name of ['method', 'path', 'status']) { const value = $('f-' + name).value.trim(); if (value) params.set(name, value) }
  const first = await api('GET', '/requests?' + params)
  let list = first.list
  if (first.total > 100) {
    params.set('page', String(Math.ceil(first.total / 100)))
    list = (await api('GET', '/requests?' + params)).list
  }
  $('journal-total').textContent = '(' + first.total + ')'
  const open = new Set([...document.querySelectorAll('#journal details[open]')].map((el) => el.dataset.id))
  $('journal').replaceChildren(...list.slice().reverse().map((entry) => {
    const details = document.createElement('details')
    details.dataset.id = entry.id
    if (open.has(String(entry.id))) details.open = true
    const summary = document.createElement('summary')
    summary.append(cell('span', entry.method), cell('span', entry.path + (Object.keys(entry.query).length ? '?' + new URLSearchParams(entry.query) : '')),
      cell('span', entry.status || 'reset', 's' + String(entry.status).charAt(0)), cell('span', entry.at.slice(11, 23)), cell('span', entry.durationMs + ' ms'))
    details.append(summary)
    if (entry.requestBody !== undefined) details.append(cell('div', 'request', 'muted'), cell('pre', JSON.stringify(entry.requestBody, null, 2)))
    if (entry.responseBody !== undefined) details.append(cell('div', 'response', 'muted'), cell('pre', JSON.stringify(entry.responseBody, null, 2)))
    if (entry.overrideId) details.append(cell('div', 'answered by override ' + entry.overrideId, 'muted'))
    return details
  }))
}
async function loadSettings() {
  const config = await api('GET', '/config')
  const delay = config.delay
  // A field being edited keeps what the person is typing.
  const set = (id, property, value) => { if (document.activeElement !== $(id)) $(id)[property] = value }
  set('delay', 'value', typeof delay === 'number' ? delay : delay.min + '-' + delay.max)
  set('errorRate', 'value', config.errorRate)
  set('dropRate', 'value', config.dropRate)
  set('strict', 'checked', config.strict)
  set('auth', 'checked', config.auth)
}
async function loadOverrides() {
  const list = (await api('GET', '/overrides?pageSize=100')).list
  $('overrides').replaceChildren(...list.map((override) => {
    const row = document.createElement('tr')
    const remove = document.createElement('button')
    remove.textContent = 'Remove'
    remove.setAttribute('aria-label', 'Remove override ' + override.id)
    remove.onclick = () => act(() => api('DELETE', '/overrides/' + override.id), loadOverrides)
    const actions = document.createElement('td')
    actions.append(remove)
    row.append(cell('td', override.method || 'any'), cell('td', override.path),
      cell('td', 'drop' in override.response ? 'drop' : override.response.status), cell('td', override.remaining === undefined ? '∞' : override.remaining + ' left'), actions)
    return row
  }))
}
async function act(run, ...after) {
  try { await run(); status('done'); for (const step of after) await step() } catch (error) { status(String(error.message || error)) }
}
async function refreshAll() { await Promise.all([loadData(), loadJournal(), loadSettings(), loadOverrides()]) }
function setting(id, value) { return act(() => api('PATCH', '/config', { [id]: value }), loadSettings) }

$('sandbox').onchange = (event) => { state.sandbox = event.target.value; state.page = 1; act(refreshAll) }
$('reset').onclick = () => act(() => api('DELETE', '/db'), loadData)
$('clear').onclick = () => act(() => api('DELETE', '/requests'), loadJournal)
$('download').onclick = () => act(async () => {
  const data = await api('GET', '/db')
  const link = document.createElement('a')
  link.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }))
  link.download = 'sandbox-data' + (state.sandbox ? '-' + state.sandbox : '') + '.json'
  link.click()
  URL.revokeObjectURL(link.href)
})
$('load').onchange = (event) => { const file = event.target.files[0]; if (file) act(async () => api('PUT', '/db', await file.text()), loadData) }
$('collection').onchange = () => { state.page = 1; renderTable() }
$('search').oninput = () => { state.page = 1; renderTable() }
$('prev').onclick = () => { state.page--; renderTable() }
$('next').onclick = () => { state.page++; renderTable() }
$('refresh').onclick = () => act(loadData)
for (const id of ['f-method', 'f-path', 'f-status']) $(id).oninput = () => act(loadJournal)
$('delay').onchange = () => setting('delay', /^\\d+$/.test($('delay').value) ? Number($('delay').value) : $('delay').value)
for (const id of ['errorRate', 'dropRate']) $(id).onchange = () => setting(id, Number($(id).value))
for (const id of ['strict', 'auth']) $(id).onchange = () => setting(id, $(id).checked)
$('override-form').onsubmit = (event) => {
  event.preventDefault()
  $('o-error').textContent = ''
  let extra = {}
  try { extra = $('o-extra').value.trim() ? JSON.parse($('o-extra').value) : {} } catch { $('o-error').textContent = 'more fields: not valid JSON'; return }
  const body = { path: $('o-path').value.trim(), response: Object.assign({ status: Number($('o-status').value) }, extra) }
  if ($('o-method').value) body.method = $('o-method').value
  if ($('o-times').value) body.times = Number($('o-times').value)
  api('POST', '/overrides', body).then(loadOverrides, (error) => ($('o-error').textContent = error.message))
}
loadSandboxes().then(refreshAll).then(
  () => { status('live'); document.documentElement.dataset.console = 'ready' },
  (error) => status(String(error.message || error)),
)
setInterval(() => { loadJournal().catch(() => {}); loadOverrides().catch(() => {}) }, 1000)
setInterval(() => { loadSandboxes().catch(() => {}); api('GET', '').then((info) => {
  const shown = [...document.querySelectorAll('#counts .count b')].map((el) => Number(el.textContent))
  const now = Object.values(info.counts)
  if (shown.join() !== now.join()) loadData()
}).catch(() => {}) }, 2000)
`

/** Serves the console page and its script; false for other paths. */
export function consolePage(): (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  frame: FrameHeaders,
) => boolean {
  return (req, res, path, frame) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false
    let body: string
    let type: string
    if (path === '/__sandbox/ui' || path === '/__sandbox/ui/') {
      ;[body, type] = [page, 'text/html; charset=utf-8']
    } else if (path === '/__sandbox/ui/console.js') {
      ;[body, type] = [script, 'text/javascript; charset=utf-8']
    } else return false
    res.writeHead(200, {
      ...frame,
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      // Everything from this origin, nothing inline but styles: a page that steers the sandbox runs no foreign code.
      'content-security-policy':
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    })
    res.end(req.method === 'HEAD' ? undefined : body)
    return true
  }
}
