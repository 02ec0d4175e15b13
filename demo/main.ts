import type { Order, User } from '../browser/index.js'
import { startSandbox } from '../browser/index.js'

/** Options from the query string: ?baseUrl=…&persist=1&seed=…&users=… */
const params = new URLSearchParams(location.search)
const baseUrl = params.get('baseUrl') ?? ''
const seed = params.has('seed') ? Number(params.get('seed')) : undefined

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const state = { page: 1, pageSize: 10, total: 0, editing: null as number | null, selected: 2 }

const sandbox = await startSandbox({
  baseUrl,
  quiet: true,
  persist: params.get('persist') === '1',
  ...(seed === undefined ? {} : { seed }),
})
Object.assign(window, { sandbox })
$('status').textContent = `service worker active · API at ${baseUrl || location.origin}`
document.documentElement.dataset.sandbox = 'ready'

/** Calls the API like any app would, and shows the raw envelope. */
async function api(method: string, path: string, body?: unknown) {
  const token = $<HTMLSelectElement>('token').value
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  })
  const text = await response.text()
  const envelope = text ? JSON.parse(text) : null
  $('last-request').textContent = `${method} ${path} → ${response.status}`
  const badge = $('last-status')
  badge.textContent = String(response.status)
  badge.className = `badge ${response.ok ? 'ok' : 'fail'}`
  $('envelope').textContent = envelope === null ? '(no body)' : JSON.stringify(envelope, null, 2)
  return { status: response.status, envelope }
}

function cell(text: string | number): HTMLTableCellElement {
  const td = document.createElement('td')
  td.textContent = String(text)
  return td
}

function button(label: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button')
  element.type = 'button'
  element.textContent = label
  element.addEventListener('click', (event) => {
    event.stopPropagation()
    onClick()
  })
  return element
}

async function loadUsers() {
  const query = new URLSearchParams({
    page: String(state.page),
    pageSize: String(state.pageSize),
    sort: $<HTMLSelectElement>('sort').value,
    order: $<HTMLSelectElement>('order').value,
  })
  const keyword = $<HTMLInputElement>('keyword').value.trim()
  if (keyword) query.set('keyword', keyword)
  const status = $<HTMLSelectElement>('filter-status').value
  if (status) query.set('status', status)
  const { status: code, envelope } = await api('GET', `/users?${query}`)
  const rows = $('users')
  rows.replaceChildren()
  if (code !== 200) {
    $('page-info').textContent = envelope?.message ?? `HTTP ${code}`
    return
  }
  const { list, total } = envelope.data as { list: User[]; total: number }
  state.total = total
  const pages = Math.max(1, Math.ceil(total / state.pageSize))
  $('page-info').textContent = `page ${state.page} of ${pages} · ${total} users`
  for (const user of list) {
    const row = document.createElement('tr')
    row.dataset.id = String(user.id)
    if (user.id === state.selected) row.className = 'selected'
    row.append(cell(user.id), cell(user.name), cell(user.email), cell(user.status), cell(user.role))
    const actions = document.createElement('td')
    actions.append(
      button('Edit', () => edit(user)),
      button('Delete', () => remove(user.id)),
    )
    row.append(actions)
    row.addEventListener('click', () => selectUser(user.id))
    rows.append(row)
  }
}

async function selectUser(id: number) {
  state.selected = id
  for (const row of $('users').querySelectorAll('tr'))
    row.classList.toggle('selected', row.dataset.id === String(id))
  const { status, envelope } = await api(
    'GET',
    `/users/${id}/orders?pageSize=100&sort=createdAt&order=desc`,
  )
  $('orders-title').textContent = `Orders of user ${id}`
  const rows = $('orders')
  rows.replaceChildren()
  if (status !== 200) return
  for (const order of envelope.data.list as Order[]) {
    const row = document.createElement('tr')
    const items = order.items.map((item) => `${item.quantity} × ${item.productName}`).join(', ')
    row.append(
      cell(order.id),
      cell(order.status),
      cell(items),
      cell(order.total.toFixed(2)),
      cell(order.createdAt.slice(0, 10)),
    )
    rows.append(row)
  }
}

function edit(user: User) {
  state.editing = user.id
  const form = $<HTMLFormElement>('user-form')
  for (const field of ['name', 'email', 'role', 'status'] as const) {
    ;(form.elements.namedItem(field) as HTMLInputElement).value = user[field]
  }
  $('form-title').textContent = `Edit user ${user.id}`
  $('save').textContent = 'Save'
  $('cancel-edit').hidden = false
}

function stopEditing() {
  state.editing = null
  $<HTMLFormElement>('user-form').reset()
  $('form-title').textContent = 'Create a user'
  $('save').textContent = 'Create'
  $('cancel-edit').hidden = true
}

async function remove(id: number) {
  await api('DELETE', `/users/${id}`)
  await loadUsers()
}

$<HTMLFormElement>('user-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const body = Object.fromEntries(new FormData(event.target as HTMLFormElement))
  const { status } =
    state.editing === null
      ? await api('POST', '/users', body)
      : await api('PATCH', `/users/${state.editing}`, body)
  if (status < 300) {
    stopEditing()
    await loadUsers()
  }
})

$('cancel-edit').addEventListener('click', stopEditing)
$('prev').addEventListener('click', () => {
  state.page = Math.max(1, state.page - 1)
  void loadUsers()
})
$('next').addEventListener('click', () => {
  if (state.page * state.pageSize < state.total) state.page += 1
  void loadUsers()
})
for (const id of ['keyword', 'filter-status', 'sort', 'order', 'token']) {
  $(id).addEventListener(id === 'keyword' ? 'input' : 'change', () => {
    state.page = 1
    void loadUsers()
  })
}
$('reset').addEventListener('click', async () => {
  await api('DELETE', '/__sandbox/db')
  await loadUsers()
})

await loadUsers()
await selectUser(state.selected)
