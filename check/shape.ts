import type { Resource } from '../resources/catalog.js'
import type { Row } from '../resources/define.js'

/**
 * CONTRACT C4's drift check: probes a deployment of the real API and reports where it differs
 * from the contract the sandbox serves. Every probe and expectation comes from the same catalog
 * the sandbox is made of (routes, schemas, query rules, permissions, codes): what does not
 * depend on data (a bad query, a missing id, no token, a wrong method) is asked of an
 * in-process sandbox of that catalog too (the oracle) and the two answers compared; what does
 * (a page, a sort, a filter) is checked against the rule on the target's own records. So the
 * check cannot disagree with the sandbox: run against the sandbox, it finds no drift.
 */

import type { Reply } from './report.js'

export function statusDrift(reply: Reply, status: number): string[] {
  return reply.status === status
    ? []
    : [
        `status ${reply.status}, expected ${status}${reply.body?.message ? ` (${String(reply.body.message).slice(0, 100)})` : ''}`,
      ]
}

/** The status expected, and the envelope and headers of any answer: what every probe checks. */
export function answerDrift(reply: Reply, status: number): string[] {
  return [...statusDrift(reply, status), ...envelopeDrift(reply)]
}

/** CONTRACT B's envelope and headers on any JSON answer. */
export function envelopeDrift(reply: Reply): string[] {
  const drift: string[] = []
  // Every answer carries one, echoed when sent (B3), a 204 too.
  const requestId = reply.headers.get('x-request-id')
  if (!requestId) drift.push('no X-Request-Id header')
  else if (reply.requestId !== undefined && requestId !== reply.requestId)
    drift.push(`X-Request-Id ${requestId.slice(0, 80)}, expected the one sent, ${reply.requestId}`)
  if (reply.status === 204 || reply.status === 304) return drift
  if (!/^application\/json\b/i.test(reply.headers.get('content-type') ?? ''))
    drift.push(
      `Content-Type ${reply.headers.get('content-type') ?? 'missing'}, expected application/json`,
    )
  const body = reply.body
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    drift.push(`the body is not an envelope: ${reply.text.slice(0, 80)}`)
    return drift
  }
  for (const field of ['code', 'message', 'data'])
    if (!(field in body)) drift.push(`the envelope has no ${field}`)
  const extra = Object.keys(body).filter((key) => !['code', 'message', 'data'].includes(key))
  if (extra.length > 0) drift.push(`the envelope has fields the contract lacks: ${names(extra)}`)
  if (typeof body.code === 'number') {
    if (reply.status < 300 && body.code !== 0)
      drift.push(`code ${body.code} on a ${reply.status}, expected 0`)
    if (reply.status >= 400 && body.code === 0) drift.push(`code 0 on a ${reply.status}`)
  } else if ('code' in body) drift.push('code is not a number')
  if (reply.status >= 400 && body.data !== null && 'data' in body)
    drift.push('data is not null on an error')
  return drift
}

export function payloadField(reply: Reply, field: string, value: number): string[] {
  const got = reply.body?.data?.[field]
  return reply.status < 300 && got !== value
    ? [`data.${field} is ${JSON.stringify(got)}, expected ${value}`]
    : []
}

/**
 * Whether a record is the one made from `body`: it holds, as sent, a text that carries this
 * run's `stamp` (nobody else's record can), or, when none was sent, every field as sent.
 */
export function echoes(
  record: Record<string, unknown>,
  body: Record<string, unknown>,
  stamp: string,
) {
  const stamped = Object.entries(body).filter(
    ([, value]) => typeof value === 'string' && value.includes(stamp),
  )
  const fields = stamped.length > 0 ? stamped : Object.entries(body)
  const holds = ([field, value]: [string, unknown]) =>
    JSON.stringify(record[field]) === JSON.stringify(value)
  return stamped.length > 0 ? fields.some(holds) : fields.every(holds)
}

/**
 * The records of a list answer (objects only), for the probes that read them; on a 2xx that
 * holds no list, says so in `drift` (a probe must not pass for want of anything to check).
 */
export function listOf(reply: Reply, drift: string[]): Row[] {
  const list: unknown = reply.body?.data?.list
  if (!Array.isArray(list)) {
    if (reply.status >= 200 && reply.status < 300 && drift.length === 0)
      drift.push(`no data.list in the answer: ${reply.text.slice(0, 80)}`)
    return []
  }
  return list.filter(
    (record): record is Row =>
      typeof record === 'object' && record !== null && !Array.isArray(record),
  )
}

/** A list payload: `{ list, total, page, pageSize }`, each record valid. */
export function listDrift(reply: Reply, resource: Resource): string[] {
  const drift = envelopeDrift(reply)
  if (reply.status >= 300) return drift
  const data = reply.body?.data
  if (!data || typeof data !== 'object') return [...drift, 'data is not a list payload']
  for (const field of ['list', 'total', 'page', 'pageSize'])
    if (!(field in data)) drift.push(`data has no ${field}`)
  const extra = Object.keys(data).filter(
    (key) => !['list', 'total', 'page', 'pageSize'].includes(key),
  )
  if (extra.length > 0) drift.push(`data has fields the contract lacks: ${names(extra)}`)
  if (!Array.isArray(data.list)) return drift
  for (const record of data.list) {
    const problems = recordDrift(resource, record)
    if (problems.length > 0) {
      drift.push(...problems)
      break
    }
  }
  return drift
}

/** One record against its schema, and no field the contract lacks. */
export function recordDrift(resource: Resource, record: unknown): string[] {
  if (record === null || typeof record !== 'object')
    return [`a ${resource.singular} is not an object`]
  const id = (record as Row).id
  const drift: string[] = []
  const parsed = resource.schema.safeParse(record)
  if (!parsed.success)
    for (const issue of parsed.error.issues.slice(0, 3))
      drift.push(
        `${resource.singular} ${String(id)}: ${issue.path.join('.') || '(record)'}: ${issue.message}`,
      )
  const extra = Object.keys(record).filter((field) => !resource.fields.includes(field))
  if (extra.length > 0)
    drift.push(`${resource.singular} ${String(id)} has fields the contract lacks: ${names(extra)}`)
  return drift
}

/** Field names for a message: the first few, clipped, and how many more. */
export function names(list: readonly string[]): string {
  const shown = list.slice(0, 10).map((name) => (name.length > 60 ? `${name.slice(0, 60)}…` : name))
  return `${shown.join(', ')}${list.length > 10 ? ` and ${list.length - 10} more` : ''}`
}
