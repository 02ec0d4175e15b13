import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { describe, expect, it } from 'vitest'
import { openApiDocument } from '../../index.js'
import { useSandboxServer } from '../support/over-http.js'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const folder = new URL('../artifacts/typed-client/', import.meta.url)
const http = useSandboxServer()

/** A small program a frontend developer would write with the generated client. */
const script = `import createClient from 'openapi-fetch'
import type { paths } from './schema.js'

const client = createClient<paths>({
  baseUrl: process.env.SANDBOX_URL,
  headers: { Authorization: 'Bearer sandbox-admin-token' },
  // fields is comma-separated (style form, explode false); openapi-fetch explodes arrays by default
  querySerializer: { array: { style: 'form', explode: false } },
})

function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.data) throw new Error(\`\${result.response.status}: \${JSON.stringify(result.error)}\`)
  return result.data
}

const page = ok(await client.GET('/users', { params: { query: { pageSize: 5, sort: 'createdAt', order: 'desc', status: 'active' } } }))
const total: number = page.data.total
const names: string[] = page.data.list.map((user) => user.name)

const sparse = ok(await client.GET('/users', { params: { query: { fields: ['id', 'name'], pageSize: 2 } } }))
if (JSON.stringify(Object.keys(sparse.data.list[0]!)) !== '["id","name"]') throw new Error('fields ignored')

const created = ok(await client.POST('/users', { body: { name: 'typed-client', email: 'typed@example.com' } }))
const id: number = created.data.id
const read = ok(await client.GET('/users/{user_id}', { params: { path: { user_id: id } } }))
if (read.data.email !== 'typed@example.com') throw new Error('read back the wrong user')

const product = ok(await client.POST('/products', { body: { name: 'Typed', sku: 'TYPED-1', price: 19.99, stock: 5 } }))
const order = ok(
  await client.POST('/users/{user_id}/orders', {
    params: { path: { user_id: id } },
    body: { items: [{ productId: product.data.id, quantity: 3 }] },
  }),
)
const orderTotal: number = order.data.total
if (orderTotal !== 59.97) throw new Error(\`total \${orderTotal}\`)
const orders = ok(await client.GET('/users/{user_id}/orders', { params: { path: { user_id: id }, query: { status: 'pending' } } }))
const one = ok(await client.GET('/orders/{order_id}', { params: { path: { order_id: order.data.id } } }))
const status: 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' = one.data.status

const failed = await client.POST('/users', { body: { name: 'admin', email: 'x@example.com' } })
if (failed.error?.code !== 40001) throw new Error('expected 409 / 40001')

// The types are real: these must not compile.
// @ts-expect-error: 'password' is not a sortable field
void client.GET('/users', { params: { query: { sort: 'password' } } })
// @ts-expect-error: email is required when creating a user
void client.POST('/users', { body: { name: 'no-email' } })

console.log(JSON.stringify({ total, names: names.length, orders: orders.data.total, status }))
`

describe('a typed client generated from the document', () => {
  it('type-checks (openapi-typescript + openapi-fetch) and works against the running server', async () => {
    await mkdir(folder, { recursive: true })
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(openApiDocument()))))
    await writeFile(new URL('schema.d.ts', folder), types)
    await writeFile(new URL('client.ts', folder), script)
    await writeFile(
      new URL('tsconfig.json', folder),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['client.ts'],
      }),
    )
    const dir = fileURLToPath(folder)
    await exec(`${root}node_modules/.bin/tsc`, ['-p', dir], { cwd: root })
    const { stdout } = await exec(`${root}node_modules/.bin/tsx`, [`${dir}client.ts`], {
      cwd: root,
      env: { ...process.env, SANDBOX_URL: http.server.url },
    })
    expect(JSON.parse(stdout)).toEqual({
      total: expect.any(Number),
      names: 5,
      orders: 1,
      status: 'pending',
    })
  })
})
