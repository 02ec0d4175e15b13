/**
 * The page of the browser bench (bench/browser.ts), as an app writes it: `main.js` starts the
 * sandbox (`startSandbox()` from the built package) or, for the like-for-like ceiling, msw's own
 * `setupWorker` with one static handler per route answering the bytes the sandbox answers; then
 * its first `fetch`. Each is a dynamic import, as an app loads its mocks in development only.
 * The page then offers `window.bench(kind, count, concurrency)`: that many `fetch`es of one kind,
 * `concurrency` at a time, and each one's milliseconds.
 */

/** The requests measured, as the app sends them (the server bench's, on the page's origin). */
export const requests = {
  'GET /products/1': { method: 'GET', path: '/api/products/1' },
  'first page': { method: 'GET', path: '/api/users?page=1&pageSize=20' },
  'filtered + sorted + keyword': {
    method: 'GET',
    path: '/api/users?status=active&keyword=an&sort=name&order=desc&pageSize=20',
  },
  'POST /users': { method: 'POST', path: '/api/users' },
} as const

export type RequestKind = keyof typeof requests

/** What the msw-alone page answers for a kind: the sandbox's status, headers and body. */
export interface Recorded {
  status: number
  headers: Record<string, string>
  body: string
}

export const indexHtml = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench</title></head>
<body><div id="app"></div><script type="module" src="/main.js"></script></body></html>
`

/** The bench's two pages: each is built on its own, as an app is. */
export type PageMode = 'sandbox' | 'msw'

/**
 * The page's script, for one mode: the other mode's code is left out of its build (a constant
 * the bundler folds), so neither page loads what only the other imports.
 */
export const mainJs = (mode: PageMode) => `const mode = ${JSON.stringify(mode)}
const requests = ${JSON.stringify(requests)}
const params = new URLSearchParams(location.search)
const headers = { authorization: 'Bearer sandbox-admin-token' }
let sent = 0

function send(kind) {
  const { method, path } = requests[kind]
  if (method === 'GET') return fetch(path, { headers })
  sent++
  const name = 'bench-' + Date.now().toString(36) + '-' + sent
  return fetch(path, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name, email: name + '@example.com' }),
  })
}

async function startMsw() {
  const [{ setupWorker }, { http }] = await Promise.all([import('msw/browser'), import('msw')])
  const recorded = window.recorded
  const reply = (kind) => () =>
    new Response(recorded[kind].body, { status: recorded[kind].status, headers: recorded[kind].headers })
  const users = reply('first page')
  const filtered = reply('filtered + sorted + keyword')
  const worker = setupWorker(
    http.get('/api/products/:id', reply('GET /products/1')),
    http.get('/api/users', ({ request }) =>
      (new URL(request.url).searchParams.has('keyword') ? filtered : users)(),
    ),
    http.post('/api/users', reply('POST /users')),
  )
  await worker.start({ quiet: true, onUnhandledRequest: 'bypass' })
}

async function startSandbox() {
  const { startSandbox } = await import('shop-sandbox/browser')
  const users = params.get('users')
  await startSandbox({
    baseUrl: '/api',
    quiet: true,
    persist: params.has('persist'),
    console: params.has('console') ? { open: true } : false,
    ...(users ? { users: Number(users), orders: Number(users) * 2 } : {}),
  })
}

window.bench = async (kind, count, concurrency) => {
  const times = []
  let next = 0
  const lane = async () => {
    while (next < count) {
      next++
      const start = performance.now()
      const response = await send(kind)
      await response.text()
      times.push(performance.now() - start)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: concurrency }, lane))
  return { times, elapsed: performance.now() - start }
}

await (mode === 'msw' ? startMsw() : startSandbox())
const first = await send('GET /products/1')
await first.text()
// Navigation start to the first answered fetch: the worker registered, the mocks started.
window.startMs = performance.now()
window.firstStatus = first.status
`
