import type { ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { seedData } from '../../index.js'
import { countsFor } from '../scenarios.js'
import { reportCpu } from './report-cpu.js'

/**
 * The baseline: bare node:http serving the same data from plain arrays, with the least code
 * that gives the same answers (no validation, no auth, no journal). What "fast" means here.
 */
const data = seedData(countsFor(Number(process.argv[2])))
const users = [...data.users]
const orders = [...data.orders]

function send(res: ServerResponse, status: number, data: unknown) {
  const body = JSON.stringify({ code: 0, message: 'success', data })
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  })
  res.end(body)
}

function page<T>(list: T[], size: number) {
  return { list: list.slice(0, size), total: list.length, page: 1, pageSize: size }
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://baseline')
  const parts = url.pathname.split('/')
  if (req.method === 'POST') {
    let text = ''
    req.on('data', (chunk) => (text += chunk))
    req.on('end', () => {
      const now = new Date().toISOString()
      const user = {
        id: users.length + 1,
        ...JSON.parse(text),
        status: 'active',
        role: 'member',
        createdAt: now,
        updatedAt: now,
      }
      users.push(user)
      send(res, 201, user)
    })
    return
  }
  if (parts.length === 3) return send(res, 200, users[Number(parts[2]) - 1])
  if (parts.length === 4) {
    const id = Number(parts[2])
    return send(
      res,
      200,
      page(
        orders.filter((order) => order.userId === id),
        20,
      ),
    )
  }
  const keyword = url.searchParams.get('keyword')
  if (!keyword) return send(res, 200, page(users, 20))
  const matches = users
    .filter(
      (user) =>
        user.status === 'active' &&
        `${user.name}\u0000${user.email}`.toLowerCase().includes(keyword),
    )
    .sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? 1 : -1))
  return send(res, 200, page(matches, 20))
})

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }))
})

reportCpu()
