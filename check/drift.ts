import type * as z from 'zod'
import type { Catalog, Resource } from '../resources/catalog.js'
import type { Row } from '../resources/define.js'
import { sortKey } from '../resources/list.js'
import { clip } from '../contract/params.js'
import { isAdmin } from '../http/auth.js'
import { apiRoutes } from '../http/routes.js'
import type { Sandbox } from '../sandbox/create-sandbox.js'

/**
 * CONTRACT C4's drift check: probes a deployment of the real API and reports where it differs
 * from the contract the sandbox serves. Every probe and expectation comes from the same catalog
 * the sandbox is made of (routes, schemas, query rules, permissions, codes): what does not
 * depend on data (a bad query, a missing id, no token, a wrong method) is asked of an
 * in-process sandbox of that catalog too (the oracle) and the two answers compared; what does
 * (a page, a sort, a filter) is checked against the rule on the target's own records. So the
 * check cannot disagree with the sandbox: run against the sandbox, it finds no drift.
 */

interface Ask {
  method?: string
  token?: string | null
  body?: unknown
  headers?: Record<string, string>
}

class Unreachable extends Error {}
import type { CheckOptions, CheckReport, ProbeResult, Reply } from './report.js'
import { summary } from './report.js'
import { ANSWER_LIMIT, read } from './answer.js'
import {
  echoes,
  answerDrift,
  envelopeDrift,
  listDrift,
  listOf,
  names,
  payloadField,
  recordDrift,
  statusDrift,
} from './shape.js'

export type { CheckOptions, CheckReport, ProbeResult, Reply } from './report.js'
export { reportJson, reportLines } from './report.js'
export { read } from './answer.js'

/** Runs every probe against `options.url`; `oracle` is a sandbox of the same catalog. */
export async function checkDrift(
  catalog: Catalog,
  oracle: Sandbox,
  options: CheckOptions,
): Promise<CheckReport> {
  const base = options.url.replace(/\/$/, '')
  const timeoutMs = options.timeoutMs ?? 10_000
  const oracleAdmin = oracleToken(catalog, oracle, true)
  const oracleMember = oracleToken(catalog, oracle, false)
  const adminToken = options.token ?? oracleAdmin
  const probes: ProbeResult[] = []

  let sent = 0
  async function target(path: string, ask: Ask = {}): Promise<Reply> {
    const token = ask.token === undefined ? adminToken : ask.token
    // Each probe names itself: the answer must echo it (B3), and the target's logs can find it.
    const requestId = `shop-sandbox-check-${++sent}`
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-request-id': requestId,
      ...ask.headers,
    }
    if (token) headers.authorization = `Bearer ${token}`
    if (ask.body !== undefined) headers['content-type'] = 'application/json'
    // The whole exchange, body included, is under the timeout: a target that stalls or drops
    // mid-body stops the check (exit 2) with its reason, never with a stack trace.
    try {
      const response = await fetch(`${base}${path}`, {
        method: ask.method ?? 'GET',
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        ...(ask.body === undefined ? {} : { body: JSON.stringify(ask.body) }),
      })
      return { ...(await read(response, ANSWER_LIMIT)), requestId }
    } catch (error) {
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause
      throw new Unreachable(
        `cannot reach ${base}${path}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      )
    }
  }
  async function expected(path: string, ask: Ask = {}, member = false): Promise<Reply> {
    const token = ask.token === null ? null : member ? oracleMember : oracleAdmin
    const headers: Record<string, string> = { ...ask.headers }
    if (token) headers.authorization = `Bearer ${token}`
    if (ask.body !== undefined) headers['content-type'] = 'application/json'
    return read(
      await oracle.fetch(`http://oracle.test${oracle.options.basePath}${path}`, {
        method: ask.method ?? 'GET',
        headers,
        ...(ask.body === undefined ? {} : { body: JSON.stringify(ask.body) }),
      }),
    )
  }
  function report(probe: string, drift: string[]) {
    probes.push({ probe, ok: drift.length === 0, drift })
  }
  /** A probe whose expectation the oracle gives: status, business code, the headers named. */
  async function asOracle(
    label: string,
    path: string,
    ask: Ask,
    headers: readonly string[] = [],
    member = false,
  ) {
    const [got, want] = await Promise.all([target(path, ask), expected(path, ask, member)])
    const drift = envelopeDrift(got)
    if (got.status !== want.status) drift.unshift(`status ${got.status}, expected ${want.status}`)
    else if (got.body?.code !== want.body?.code)
      drift.push(`code ${String(got.body?.code)}, expected ${want.body?.code}`)
    for (const name of headers) {
      const wanted = want.headers.get(name)
      const has = got.headers.get(name)
      if (wanted !== null && has === null) drift.push(`no ${name} header`)
      else if (name === 'allow' && wanted !== null && methods(has!) !== methods(wanted))
        drift.push(`Allow: ${has}, expected ${wanted}`)
    }
    report(`${ask.method ?? 'GET'} ${path} ${label}`, drift)
  }

  try {
    const { router } = apiRoutes(catalog)
    const lists = new Map<string, Row[]>()
    // Reachable at all? The first probe says; it fails with exit 2, not as drift.
    await target('/', { token: null })
    for (const resource of catalog.resources) {
      const list = await listProbes(resource)
      lists.set(resource.name, list)
    }
    if (!options.token && probes.some((probe) => /^status 401\b/.test(probe.drift[0] ?? '')))
      report('(authentication)', [
        `the target refuses the sandbox's own admin token (${adminToken}): give one of its own with --token`,
      ])
    for (const resource of catalog.resources) {
      const records = lists.get(resource.name) ?? []
      await recordProbes(resource, records)
      if (resource.owner) await nestedProbes(resource, lists.get(resource.owner.parent.name) ?? [])
    }
    await asOracle('(an unknown route: 404)', '/__drift-check/no-such-route', {})
    for (const route of router.routes) {
      const missing = ['POST', 'PUT', 'PATCH', 'DELETE'].find(
        (method) => !(method in route.operations),
      )
      if (!missing) continue
      const path = concrete(route.path, lists, catalog)
      if (path)
        await asOracle(
          '(a method the route lacks: 405 with Allow)',
          path,
          { method: missing, body: {} },
          ['allow'],
        )
    }
    const first = catalog.resources[0]!
    const preflight = {
      method: 'OPTIONS',
      token: null,
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    }
    {
      const got = await target(`/${first.name}`, preflight)
      const drift: string[] = []
      if (got.status < 200 || got.status >= 300) drift.push(`status ${got.status}, expected 2xx`)
      if (!got.headers.get('access-control-allow-origin'))
        drift.push('no Access-Control-Allow-Origin header')
      if (!/\bGET\b/i.test(got.headers.get('access-control-allow-methods') ?? ''))
        drift.push('Access-Control-Allow-Methods does not allow GET')
      report(`OPTIONS /${first.name} (a browser's preflight)`, drift)
    }
    if (options.writes) await writeProbes(lists)
  } catch (error) {
    if (!(error instanceof Unreachable)) throw error
    if (probes.length === 0)
      return {
        target: base,
        reachable: false,
        error: error.message,
        probes,
        summary: summary(probes),
      }
    report('(the target stopped answering)', [error.message])
  }
  return { target: base, reachable: true, probes, summary: summary(probes) }

  /** The list of a resource and every query rule on it; its records, for the next probes. */
  async function listProbes(resource: Resource): Promise<Row[]> {
    const path = `/${resource.name}`
    const { listSpec } = resource
    const page = await target(`${path}?pageSize=100`)
    const drift = [...statusDrift(page, 200), ...listDrift(page, resource)]
    const records = listOf(page, [])
    report(
      `GET ${path}?pageSize=100 (the list: envelope, payload, every record against its schema)`,
      drift,
    )

    const plain = await target(path)
    report(`GET ${path} (the default page)`, [
      ...answerDrift(plain, 200),
      ...payloadField(plain, 'page', 1),
      ...payloadField(plain, 'pageSize', 20),
    ])

    const total = page.body?.data?.total
    const second = await target(`${path}?page=2&pageSize=2`)
    const paging = [
      ...answerDrift(second, 200),
      ...payloadField(second, 'page', 2),
      ...payloadField(second, 'pageSize', 2),
    ]
    if (typeof total === 'number' && second.body?.data?.total !== total)
      paging.push(`total ${second.body?.data?.total}, expected ${total} (as without paging)`)
    const secondIds = (second.body?.data?.list ?? []).map((record: Row) => record.id)
    const expectedIds = records.slice(2, 4).map((record) => record.id)
    if (records.length >= 4 && secondIds.join() !== expectedIds.join())
      paging.push(
        `ids ${secondIds.join(',')}, expected ${expectedIds.join(',')} (the 3rd and 4th by id)`,
      )
    report(`GET ${path}?page=2&pageSize=2 (paging)`, paging)

    for (const field of listSpec.sortable) {
      for (const order of ['asc', 'desc'] as const) {
        const sorted = await target(`${path}?sort=${field}&order=${order}&pageSize=50`)
        const drift = answerDrift(sorted, 200)
        const list = listOf(sorted, drift)
        const at = list.findIndex((record, index) => {
          if (index === 0) return false
          const a = sortKey(list[index - 1]![field])
          const b = sortKey(record[field])
          return order === 'asc' ? a > b : a < b
        })
        if (at > 0) drift.push(`not sorted by ${field} ${order}ending at position ${at + 1}`)
        report(`GET ${path}?sort=${field}&order=${order} (sort)`, drift)
      }
    }
    const statusField = listSpec.statuses.length > 0 ? 'status' : null
    if (statusField) {
      const wanted = listSpec.statuses[0]!
      const filtered = await target(`${path}?status=${encodeURIComponent(wanted)}&pageSize=100`)
      const drift = answerDrift(filtered, 200)
      const other = listOf(filtered, drift).find((record: Row) => record.status !== wanted)
      if (other)
        drift.push(`record ${other.id} has status ${String(other.status)}: the filter was ignored`)
      report(`GET ${path}?status=${wanted} (filter)`, drift)
    }
    // The target's records may be anything: the text a keyword searches is read only from those
    // it can be read from (the list probe above names the records off their schema).
    const textOf = (record: Row): string | null => {
      try {
        const text: unknown = listSpec.keywordText!(record)
        return typeof text === 'string' ? text : null
      } catch {
        return null
      }
    }
    const firstText = listSpec.keywordText && records[0] ? textOf(records[0]) : null
    if (firstText !== null) {
      const keyword = firstText.split('\u0000')[0]!.trim().slice(0, 3).toLowerCase()
      if (keyword.length >= 2) {
        const found = await target(`${path}?keyword=${encodeURIComponent(keyword)}&pageSize=100`)
        const drift = answerDrift(found, 200)
        const list = listOf(found, drift)
        if (!list.some((record) => record.id === records[0]!.id) && list.length < 100)
          drift.push(`record ${records[0]!.id} (whose text holds '${keyword}') is not found`)
        const stray = list.find((record) => !(textOf(record) ?? '').toLowerCase().includes(keyword))
        if (stray)
          drift.push(`record ${stray.id} does not hold '${keyword}': the keyword was ignored`)
        report(`GET ${path}?keyword=${keyword} (keyword search)`, drift)
      }
    }
    const other = resource.fields.find((field) => field !== 'id')
    if (other) {
      const picked = await target(`${path}?fields=id,${other}&pageSize=5`)
      const drift = answerDrift(picked, 200)
      const wrong = listOf(picked, drift).find(
        (record: Row) => Object.keys(record).sort().join() !== ['id', other].sort().join(),
      )
      if (wrong)
        drift.push(
          `record ${clip(String(wrong.id))} has fields ${names(Object.keys(wrong))}, expected id, ${other}`,
        )
      report(`GET ${path}?fields=id,${other} (fields)`, drift)
    }
    await asOracle('(a bad page size: 400)', `${path}?pageSize=0`, {})
    await asOracle('(an unknown sort field: 400)', `${path}?sort=__nope`, {})
    await asOracle('(no token: 401 with WWW-Authenticate)', path, { token: null }, [
      'www-authenticate',
    ])
    if (options.memberToken && resource.permission('list') === 'admin')
      await asOracle('(a member may not list: 403)', path, { token: options.memberToken }, [], true)
    return records
  }

  async function recordProbes(resource: Resource, records: readonly Row[]) {
    const path = `/${resource.name}`
    const record = records[0]
    if (record) {
      const one = await target(`${path}/${record.id}`)
      const drift = [...answerDrift(one, 200), ...recordDrift(resource, one.body?.data)]
      if (one.status === 200 && JSON.stringify(one.body?.data) !== JSON.stringify(record))
        drift.push('differs from the same record in the list')
      report(`GET ${path}/${record.id} (one record)`, drift)
    }
    await asOracle('(a missing id: 404)', `${path}/999999999`, {})
    await asOracle('(an id that is not one: 400)', `${path}/abc`, {})
  }

  async function nestedProbes(resource: Resource, parents: readonly Row[]) {
    const owner = resource.owner!
    const parent = parents[0]
    if (!parent) return
    const path = `/${owner.parent.name}/${parent.id}/${resource.name}`
    const page = await target(`${path}?pageSize=100`)
    const drift = [...statusDrift(page, 200), ...listDrift(page, resource)]
    const stray = (page.body?.data?.list ?? []).find(
      (record: Row) => record[owner.link.field] !== parent.id,
    )
    if (stray)
      drift.push(`record ${stray.id} belongs to ${owner.link.field} ${stray[owner.link.field]}`)
    report(`GET ${path} (${owner.parent.singular} ${parent.id}'s ${resource.name})`, drift)
  }

  /** Creates, reads, updates, conflicts, refuses and deletes records of its own; removes them. */
  async function writeProbes(lists: ReadonlyMap<string, Row[]>) {
    const created: Array<[string, number]> = []
    try {
      for (const resource of catalog.resources) {
        if (resource.owner || Object.keys(resource.definition.links ?? {}).length > 0) continue
        const template = lists.get(resource.name)?.[0]
        if (!template) continue
        const path = `/${resource.name}`
        const stamp = `drift${Date.now().toString(36)}`
        const body = createBody(resource, template, stamp)
        const made = await target(path, { method: 'POST', body })
        const drift = [
          ...answerDrift(made, 201),
          ...(made.status === 201 ? recordDrift(resource, made.body?.data) : []),
        ]
        const answered = made.body?.data?.id
        for (const [field, value] of Object.entries(body))
          if (
            made.status === 201 &&
            JSON.stringify(made.body?.data?.[field]) !== JSON.stringify(value)
          )
            drift.push(
              `${field} is ${JSON.stringify(made.body?.data?.[field])}, sent ${JSON.stringify(value)}`,
            )
        // Only a record this check made is changed and deleted: one the answer names that the
        // list held already, or that is not what was sent, is left alone (C4).
        const listed = new Set((lists.get(resource.name) ?? []).map((record) => record.id))
        const ours = (reply: Reply) =>
          reply.status === 201 &&
          typeof reply.body?.data?.id === 'number' &&
          !listed.has(reply.body.data.id) &&
          echoes(reply.body.data, body, stamp)
        if (typeof answered === 'number' && !ours(made))
          drift.push(
            `the answer names ${resource.singular} ${answered}, which is not the record sent: left as it is (not updated, not deleted)`,
          )
        report(`POST ${path} (create)`, drift)
        if (!ours(made)) continue
        const id = answered as number
        created.push([path, id])

        const unique = Object.keys(resource.definition.unique ?? {}).find((field) => field in body)
        if (unique) {
          const again = await target(path, { method: 'POST', body })
          const want = resource.conflict(unique, body[unique])
          const conflict = envelopeDrift(again)
          if (again.status !== want.status)
            conflict.unshift(`status ${again.status}, expected ${want.status}`)
          else if (again.body?.code !== want.code)
            conflict.push(`code ${again.body?.code}, expected ${want.code}`)
          if (ours(again) && again.body.data.id !== id) created.push([path, again.body.data.id])
          report(`POST ${path} (the same ${unique} again: ${want.status} / ${want.code})`, conflict)
        }
        await asOracle('(an empty body: 422)', path, { method: 'POST', body: {} })

        // A text field an update may change to a value its schema accepts.
        const patchShape = (resource.bodies.patch as z.ZodObject).shape as Record<string, z.ZodType>
        let field: string | undefined
        let value: string | undefined
        for (const name of Object.keys(body)) {
          if (typeof body[name] !== 'string' || !patchShape[name]) continue
          value = variants(String(body[name]), stamp)
            .slice(1)
            .find((variant) => patchShape[name]!.safeParse(variant).success)
          if (value !== undefined) {
            field = name
            break
          }
        }
        if (field && value !== undefined) {
          const patched = await target(`${path}/${id}`, {
            method: 'PATCH',
            body: { [field]: value },
          })
          const drift = answerDrift(patched, 200)
          if (patched.status === 200 && patched.body?.data?.[field] !== value)
            drift.push(
              `${field} is ${JSON.stringify(patched.body?.data?.[field])} after the update`,
            )
          report(`PATCH ${path}/${id} (update)`, drift)
        }
        const removed = await target(`${path}/${id}`, { method: 'DELETE' })
        const gone = await target(`${path}/${id}`)
        const deleted = answerDrift(removed, 204)
        if (gone.status !== 404)
          deleted.push(`GET after DELETE answered ${gone.status}, expected 404`)
        if (removed.status === 204)
          created.splice(
            created.findIndex(([, made]) => made === id),
            1,
          )
        report(`DELETE ${path}/${id} (delete)`, deleted)
      }
    } finally {
      for (const [path, id] of created)
        await target(`${path}/${id}`, { method: 'DELETE' }).catch(() => undefined)
    }
  }
}

/**
 * A create body from one of the target's records: its writable fields, each unique one made
 * new in a way its schema accepts (an e-mail stays an e-mail, a SKU stays upper case).
 */
function createBody(resource: Resource, template: Row, stamp: string): Record<string, unknown> {
  const shape = (resource.bodies.create as z.ZodObject).shape as Record<string, z.ZodType>
  const unique = resource.definition.unique ?? {}
  const body: Record<string, unknown> = {}
  for (const field of Object.keys(shape)) {
    if (!(field in template) || template[field] === null) continue
    const value = template[field]
    body[field] =
      field in unique && typeof value === 'string'
        ? (variants(value, stamp).find((variant) => shape[field]!.safeParse(variant).success) ??
          value)
        : value
  }
  return body
}

/** New strings like `value`, for a unique field or an update. */
function variants(value: string, stamp: string): string[] {
  const short = value.slice(0, 20)
  return [
    `${stamp}.${value}`,
    `${short}-${stamp}`,
    `${short}-${stamp.toUpperCase()}`,
    `${short} ${stamp}`,
    `${stamp.toUpperCase()}${short}`.slice(0, Math.max(value.length, 8)),
  ]
}

function oracleToken(catalog: Catalog, oracle: Sandbox, admin: boolean): string | null {
  const { accounts } = catalog
  for (const { token, userId } of accounts.tokens) {
    const account = oracle.db.table(accounts.resource.name).get(userId) as Row | undefined
    if (account !== undefined && isAdmin(accounts, account) === admin) return token
  }
  return null
}

/** The route's template with real ids of the target's records (null when it has none). */
function concrete(
  template: string,
  lists: ReadonlyMap<string, Row[]>,
  catalog: Catalog,
): string | null {
  let missing = false
  const path = template.replace(/\{(\w+)\}/g, (_, param: string) => {
    const resource = catalog.resources.find((one) => one.idParam === param)
    const id = resource ? lists.get(resource.name)?.[0]?.id : undefined
    if (id === undefined) missing = true
    return String(id)
  })
  return missing ? null : path
}

function methods(allow: string): string {
  return allow
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter(Boolean)
    .sort()
    .join(', ')
}
