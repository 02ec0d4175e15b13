import { rejectUnknown } from './contract/params.js'
import { validateBody } from './http/body.js'
import { orderCreateSchema } from './shop/orders.js'
const manyKeys = (size: number) => JSON.stringify(Object.fromEntries(Array.from({ length: size / 12 }, (_, n) => [`k${n}`, 1])))
const orderOf = (unit: string) => (size: number) => `{"items":[${Array.from({ length: Math.floor(size / (unit.length + 1)) }, () => unit).join(',')}]}`
const benign = orderOf('{"productId":1,"quantity":2}')(1024*1024)
const adv = manyKeys(1024 * 1024)
function t(label: string, f: () => void) { let best = 1e9; for (let i = 0; i < 3; i++) { const s = performance.now(); f(); best = Math.min(best, performance.now() - s) } console.log(label, best.toFixed(1)) }
for (const [name, text] of [['benign', benign], ['adv', adv]] as const) {
  t(name + ' parse', () => JSON.parse(text))
  const body = JSON.parse(text)
  t(name + ' validate', () => { try { validateBody(orderCreateSchema, body, { strict: true, readOnly: ['id'] }) } catch {} })
  t(name + ' keys+USP', () => new URLSearchParams(Object.keys(body).map((k) => [k, '1'])))
  const usp = new URLSearchParams(Object.keys(body).map((k) => [k, '1']))
  t(name + ' rejectUnknown', () => { try { rejectUnknown(usp, ['page']) } catch {} })
}
