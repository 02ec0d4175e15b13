import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { http, HttpResponse } from 'msw'
import { seedData } from '../../index.js'
import { mswFrameOf } from '../../server/msw-transport.js'
import { countsFor } from '../scenarios.js'
import { reportCpu } from './report-cpu.js'

/**
 * msw alone, served the way `--transport msw` serves the sandbox: one static handler answering
 * the by-id scenario's user, through the same node:http adapter and msw's `getResponse`. What
 * msw's own request handling costs, so the msw transport's row shows where its time goes.
 */
const data = seedData(countsFor(Number(process.argv[2])))
const envelope = { code: 0, message: 'success', data: data.users[122] }
const frame = await mswFrameOf([http.get('*/users/:id', () => HttpResponse.json(envelope))])
const server = createServer((req, res) =>
  frame(req, res, new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), () => {
    res.writeHead(404)
    res.end()
  }),
)
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }))
})
reportCpu()
