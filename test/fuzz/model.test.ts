import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'
import type { SandboxServer } from '../../node/index.js'
import { createSandboxServer } from '../../node/index.js'

// A model of the contract's shop (CONTRACT B1, B2, B5; the order rules in docs/reference/api.md)
// driving random sequences of requests: every answer's status and code must be the model's,
// and after each sequence the sandbox's users, products and orders must be the model's. What
// one example at a time misses: a cascade that forgets stock, an id reused after a delete, a
// uniqueness check that ignores case, a refused write that changed something anyway, a token
// that outlives its user.
const RUNS = Number(process.env.MODEL_RUNS ?? 200)
const SEED = Number(process.env.MODEL_SEED ?? 7)
const BASE = 'https://model.test'
const tokens = { admin: 'sandbox-admin-token', member: 'sandbox-member-token' } as const
type Role = keyof typeof tokens
/** The fixed member token's own user (CONTRACT B4). */
const MEMBER = 2

interface ModelUser {
  name: string
  email: string
}
interface ModelProduct {
  sku: string
  cents: number
  stock: number
  status: 'active' | 'inactive'
}
interface ModelItem {
  productId: number
  quantity: number
  cents: number
}
type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled'
interface ModelOrder {
  userId: number
  status: OrderStatus
  items: ModelItem[]
}
/** What the data are back to on a reset: the seed, as first read. */
type Data = Pick<Model, 'users' | 'products' | 'orders' | 'next'>
interface Model {
  seed: Data
  /** Overrides of placing an order (POST /users/{user_id}/orders), oldest first. */
  overrides: { status: number; remaining: number }[]
  /** Requests to place an order sent, for the journal. */
  placings: number
  /** Tokens signed in, by whom, and whether signed out since. */
  sessions: { token: string; userId: number; live: boolean }[]
  users: Map<number, ModelUser>
  products: Map<number, ModelProduct>
  orders: Map<number, ModelOrder>
  next: { users: number; products: number; orders: number }
}

/** The sandbox under test, whichever way it is reached: a path of the API and a request's init. */
interface Real {
  fetch(path: string, init: RequestInit): Promise<Response>
}

interface Answer {
  status: number
  code: number | undefined
  data: unknown
}

async function send(
  real: Real,
  method: string,
  path: string,
  body?: unknown,
  {
    role = 'admin',
    token = tokens[role],
    headers = {},
  }: { role?: Role; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await real.fetch(path, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  const parsed = text === '' ? undefined : (JSON.parse(text) as { code: number; data: unknown })
  return { status: response.status, code: parsed?.code, data: parsed?.data }
}

const ALLOWED: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
}
const holdsStock = (status: OrderStatus) => status === 'pending' || status === 'paid'

/** Gives an order's quantities back to its products (a cancel, or the delete of an order whose goods never left). */
function giveBack(model: Model, order: ModelOrder): void {
  for (const item of order.items) {
    const product = model.products.get(item.productId)
    if (product) product.stock += item.quantity
  }
}

/** Deletes an order as the sandbox does: its stock back while it held any. */
function dropOrder(model: Model, id: number): void {
  const order = model.orders.get(id)!
  if (holdsStock(order.status)) giveBack(model, order)
  model.orders.delete(id)
}

/** Takes the items' quantities from stock: the order's lines, at their products' prices. */
function take(model: Model, items: readonly { productId: number; quantity: number }[]) {
  for (const [productId, quantity] of demand(items))
    model.products.get(productId)!.stock -= quantity
  return items.map(({ productId, quantity }) => ({
    productId,
    quantity,
    cents: model.products.get(productId)!.cents,
  }))
}

/** CONTRACT B3's order of a page: by a field, ascending or not, ties by id ascending. */
function byThenId<T>(value: (entry: [number, T]) => string | number, order: 'asc' | 'desc') {
  return (a: [number, T], b: [number, T]) => {
    const [x, y] = [value(a), value(b)]
    const byField = x < y ? -1 : x > y ? 1 : 0
    return (order === 'desc' ? -byField : byField) || a[0] - b[0]
  }
}

/** Quantities by product: two lines of one product count together. */
function demand(items: readonly { productId: number; quantity: number }[]): Map<number, number> {
  const wanted = new Map<number, number>()
  for (const { productId, quantity } of items)
    wanted.set(productId, (wanted.get(productId) ?? 0) + quantity)
  return wanted
}

/** An id the model holds, or one it does not (never used, or deleted). */
const pick = fc.nat({ max: 1_000 })
const idOf = (ids: number[], choice: number, next: number) =>
  choice % 5 === 4 || ids.length === 0 ? next + (choice % 3) : ids[choice % ids.length]!
const keys = <T>(map: Map<number, T>) => [...map.keys()]

const NAMES = ['ann', 'Ann ', 'bob', 'BOB', 'cy', 'dee']
const EMAILS = ['a@x.test', 'A@X.test', 'b@x.test', 'c@x.test']
const SKUS = ['SKU-A', 'SKU-B', 'SKU-C', 'SKU-D']
const itemsArbitrary = fc.array(
  fc.record({ choice: pick, quantity: fc.integer({ min: 1, max: 6 }) }),
  {
    minLength: 1,
    maxLength: 3,
  },
)

type Command = fc.AsyncCommand<Model, Real>

class CreateUser implements Command {
  constructor(
    readonly name: string,
    readonly email: string,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const answer = await send(real, 'POST', '/users', { name: this.name, email: this.email })
    const name = this.name.trim().toLowerCase()
    const email = this.email.toLowerCase()
    const users = [...model.users.values()]
    const nameTaken = users.some((user) => user.name === name)
    const emailTaken = users.some((user) => user.email === email)
    if (nameTaken || emailTaken) {
      expect(answer.status).toBe(409)
      // Both taken: either code names a real conflict.
      expect([...(nameTaken ? [40001] : []), ...(emailTaken ? [40002] : [])]).toContain(answer.code)
      return
    }
    expect([answer.status, answer.code]).toEqual([201, 0])
    expect((answer.data as { id: number }).id).toBe(model.next.users)
    model.users.set(model.next.users++, { name, email })
  }
  toString = () => `CreateUser(${JSON.stringify(this.name)}, ${this.email})`
}

class DeleteUser implements Command {
  constructor(readonly choice: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    // Users 1 and 2 are the fixed tokens' own.
    const ids = keys(model.users).filter((id) => id > 2)
    const id = idOf(ids, this.choice, model.next.users)
    const answer = await send(real, 'DELETE', `/users/${id}`)
    if (!model.users.has(id) || id <= 2) {
      if (!model.users.has(id)) expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    expect(answer.status).toBe(204)
    for (const [orderId, order] of model.orders) if (order.userId === id) dropOrder(model, orderId)
    model.users.delete(id)
  }
  toString = () => `DeleteUser(${this.choice})`
}

class CreateProduct implements Command {
  constructor(
    readonly sku: string,
    readonly cents: number,
    readonly stock: number,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const answer = await send(real, 'POST', '/products', {
      name: `Product ${this.sku}`,
      sku: this.sku,
      price: this.cents / 100,
      stock: this.stock,
    })
    if ([...model.products.values()].some((product) => product.sku === this.sku)) {
      expect([answer.status, answer.code]).toEqual([409, 40003])
      return
    }
    expect([answer.status, answer.code]).toEqual([201, 0])
    expect((answer.data as { id: number }).id).toBe(model.next.products)
    model.products.set(model.next.products++, {
      sku: this.sku,
      cents: this.cents,
      stock: this.stock,
      status: 'active',
    })
  }
  toString = () => `CreateProduct(${this.sku}, ${this.cents}, ${this.stock})`
}

class PatchProduct implements Command {
  constructor(
    readonly choice: number,
    readonly changes: { stock?: number; status?: 'active' | 'inactive' },
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.products), this.choice, model.next.products)
    const answer = await send(real, 'PATCH', `/products/${id}`, this.changes)
    const product = model.products.get(id)
    if (!product) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    expect([answer.status, answer.code]).toEqual([200, 0])
    Object.assign(product, this.changes)
  }
  toString = () => `PatchProduct(${this.choice}, ${JSON.stringify(this.changes)})`
}

class DeleteProduct implements Command {
  constructor(readonly choice: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.products), this.choice, model.next.products)
    const answer = await send(real, 'DELETE', `/products/${id}`)
    if (!model.products.has(id)) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    expect(answer.status).toBe(204)
    // The orders that contain it go first, each giving back what it held.
    for (const [orderId, order] of model.orders)
      if (order.items.some((item) => item.productId === id)) dropOrder(model, orderId)
    model.products.delete(id)
  }
  toString = () => `DeleteProduct(${this.choice})`
}

/** 422: an item's product is missing or inactive. */
const invalidItems = (model: Model, items: readonly { productId: number }[]) =>
  items.some(({ productId }) => model.products.get(productId)?.status !== 'active')

/** 422 for invalid items; 409 / 40901 when a product lacks stock (after `held` is given back). */
function itemsProblem(
  model: Model,
  items: readonly { productId: number; quantity: number }[],
  held: Map<number, number> = new Map(),
): 'invalid' | 'stock' | null {
  if (invalidItems(model, items)) return 'invalid'
  for (const [productId, quantity] of demand(items))
    if (quantity > model.products.get(productId)!.stock + (held.get(productId) ?? 0)) return 'stock'
  return null
}

function itemsFor(model: Model, choices: readonly { choice: number; quantity: number }[]) {
  return choices.map(({ choice, quantity }) => ({
    productId: idOf(keys(model.products), choice, model.next.products),
    quantity,
  }))
}

class CreateOrder implements Command {
  constructor(
    readonly role: Role,
    readonly userChoice: number,
    readonly choices: readonly { choice: number; quantity: number }[],
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const userId =
      this.role === 'member' && this.userChoice % 2 === 0
        ? MEMBER
        : idOf(keys(model.users), this.userChoice, model.next.users)
    const items = itemsFor(model, this.choices)
    const answer = await send(
      real,
      'POST',
      `/users/${userId}/orders`,
      { items },
      { role: this.role },
    )
    model.placings++
    if (this.role === 'member' && userId !== MEMBER) {
      expect([answer.status, answer.code]).toEqual([403, 40300])
      return
    }
    // An override answers after permission and before anything else, and changes no data;
    // the newest one left answers, and leaves after its last.
    const override = model.overrides.at(-1)
    if (override) {
      expect([answer.status, answer.code]).toEqual([
        override.status,
        override.status === 201 ? 0 : answer.code,
      ])
      if (--override.remaining === 0) model.overrides.pop()
      return
    }
    if (!model.users.has(userId)) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    const problem = itemsProblem(model, items)
    if (problem === 'invalid') {
      expect([answer.status, answer.code]).toEqual([422, 42200])
      return
    }
    if (problem === 'stock') {
      expect([answer.status, answer.code]).toEqual([409, 40901])
      return
    }
    expect([answer.status, answer.code]).toEqual([201, 0])
    const order = answer.data as { id: number; status: string; total: number; userId: number }
    expect(order).toMatchObject({ id: model.next.orders, status: 'pending', userId })
    const placed: ModelOrder = { userId, status: 'pending', items: take(model, items) }
    model.orders.set(model.next.orders++, placed)
    expect(Math.round(order.total * 100)).toBe(totalCents(placed))
  }
  toString = () => `CreateOrder(${this.role}, ${this.userChoice}, ${JSON.stringify(this.choices)})`
}

const totalCents = (order: ModelOrder) =>
  order.items.reduce((sum, item) => sum + item.quantity * item.cents, 0)

/** A status change by PATCH, or by PUT with the order's own items (which are no change). */
class ChangeStatus implements Command {
  constructor(
    readonly choice: number,
    readonly status: OrderStatus,
    readonly put: boolean,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.orders), this.choice, model.next.orders)
    const order = model.orders.get(id)
    const items = (order?.items ?? [{ productId: 1, quantity: 1 }]).map(
      ({ productId, quantity }) => ({ productId, quantity }),
    )
    const answer = this.put
      ? await send(real, 'PUT', `/orders/${id}`, { status: this.status, items })
      : await send(real, 'PATCH', `/orders/${id}`, { status: this.status })
    if (!order) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    // The current status again is no change.
    if (order.status !== this.status && !ALLOWED[order.status].includes(this.status)) {
      expect([answer.status, answer.code]).toEqual([409, 40902])
      return
    }
    expect([answer.status, answer.code]).toEqual([200, 0])
    if (this.status === 'cancelled' && order.status !== 'cancelled') giveBack(model, order)
    order.status = this.status
  }
  toString = () => `ChangeStatus(${this.choice}, ${this.status}, ${this.put ? 'PUT' : 'PATCH'})`
}

class ChangeItems implements Command {
  constructor(
    readonly choice: number,
    readonly choices: readonly { choice: number; quantity: number }[],
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.orders), this.choice, model.next.orders)
    const items = itemsFor(model, this.choices)
    const answer = await send(real, 'PATCH', `/orders/${id}`, { items })
    const order = model.orders.get(id)
    if (!order) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    // The items it has, sent again, are no change: not refused for a product gone inactive
    // since (a PUT changing only the status sends them), nor for a status past pending.
    const unchanged =
      items.length === order.items.length &&
      items.every(
        (item, index) =>
          item.productId === order.items[index]!.productId &&
          item.quantity === order.items[index]!.quantity,
      )
    if (unchanged) {
      expect([answer.status, answer.code]).toEqual([200, 0])
      return
    }
    // Validation (422) comes before conflicts (409): the items' products first.
    if (invalidItems(model, items)) {
      expect([answer.status, answer.code]).toEqual([422, 42200])
      return
    }
    if (order.status !== 'pending') {
      expect([answer.status, answer.code]).toEqual([409, 40902])
      return
    }
    if (itemsProblem(model, items, demand(order.items)) === 'stock') {
      expect([answer.status, answer.code]).toEqual([409, 40901])
      return
    }
    expect([answer.status, answer.code]).toEqual([200, 0])
    giveBack(model, order)
    order.items = take(model, items)
  }
  toString = () => `ChangeItems(${this.choice}, ${JSON.stringify(this.choices)})`
}

class DeleteOrder implements Command {
  constructor(
    readonly choice: number,
    readonly representation: boolean,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.orders), this.choice, model.next.orders)
    const answer = await send(real, 'DELETE', `/orders/${id}`, undefined, {
      headers: this.representation ? { prefer: 'return=representation' } : {},
    })
    if (!model.orders.has(id)) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    if (this.representation) {
      expect([answer.status, (answer.data as { id: number }).id]).toEqual([200, id])
      // The record as it was, before its stock went back.
      expect((answer.data as { status: string }).status).toBe(model.orders.get(id)!.status)
    } else expect([answer.status, answer.data]).toEqual([204, undefined])
    dropOrder(model, id)
  }
  toString = () => `DeleteOrder(${this.choice}, ${this.representation})`
}

/** A conflict of `changes` with another user than `id`: its code, or null. */
function userConflict(model: Model, id: number, changes: { name?: string; email?: string }) {
  const others = [...model.users].filter(([other]) => other !== id).map(([, user]) => user)
  const name = changes.name?.trim().toLowerCase()
  const email = changes.email?.toLowerCase()
  const codes = [
    ...(name !== undefined && others.some((user) => user.name === name) ? [40001] : []),
    ...(email !== undefined && others.some((user) => user.email === email) ? [40002] : []),
  ]
  return codes.length === 0 ? null : codes
}

class PatchUser implements Command {
  constructor(
    readonly role: Role,
    readonly choice: number,
    readonly changes: { name?: string; email?: string },
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.users), this.choice, model.next.users)
    const answer = await send(real, 'PATCH', `/users/${id}`, this.changes, { role: this.role })
    // Permission before existence: a member elsewhere is 403, whether the user exists or not.
    if (this.role === 'member' && id !== MEMBER) {
      expect([answer.status, answer.code]).toEqual([403, 40300])
      return
    }
    const user = model.users.get(id)
    if (!user) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    const conflict = userConflict(model, id, this.changes)
    if (conflict) {
      expect(answer.status).toBe(409)
      expect(conflict).toContain(answer.code)
      return
    }
    expect([answer.status, answer.code]).toEqual([200, 0])
    if (this.changes.name !== undefined) user.name = this.changes.name.trim().toLowerCase()
    if (this.changes.email !== undefined) user.email = this.changes.email.toLowerCase()
  }
  toString = () => `PatchUser(${this.role}, ${this.choice}, ${JSON.stringify(this.changes)})`
}

/** A member reading a user and that user's orders: their own, or 403 anywhere else. */
class MemberReads implements Command {
  constructor(readonly choice: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id =
      this.choice % 3 === 0 ? MEMBER : idOf(keys(model.users), this.choice, model.next.users)
    const user = await send(real, 'GET', `/users/${id}`, undefined, { role: 'member' })
    const orders = await send(real, 'GET', `/users/${id}/orders?pageSize=100`, undefined, {
      role: 'member',
    })
    if (id !== MEMBER) {
      expect([user.status, user.code, orders.status, orders.code]).toEqual([403, 40300, 403, 40300])
      return
    }
    expect([user.status, orders.status]).toEqual([200, 200])
    expect((orders.data as { list: { id: number }[] }).list.map((order) => order.id)).toEqual(
      [...model.orders].filter(([, order]) => order.userId === MEMBER).map(([orderId]) => orderId),
    )
  }
  toString = () => `MemberReads(${this.choice})`
}

type SortField = 'id' | 'stock' | 'price' | 'sku'
/** A page of products, filtered and sorted (CONTRACT B3): ties by id ascending, the true total. */
class ListProducts implements Command {
  constructor(
    readonly status: 'active' | 'inactive' | undefined,
    readonly sort: SortField,
    readonly order: 'asc' | 'desc',
    readonly page: number,
    readonly pageSize: number,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const query = new URLSearchParams({
      ...(this.status ? { status: this.status } : {}),
      sort: this.sort,
      order: this.order,
      page: String(this.page),
      pageSize: String(this.pageSize),
    })
    const answer = await send(real, 'GET', `/products?${query}`)
    const value = ([id, product]: [number, ModelProduct]) =>
      this.sort === 'id' ? id : this.sort === 'price' ? product.cents : product[this.sort]
    const matching = [...model.products]
      .filter(([, product]) => this.status === undefined || product.status === this.status)
      .sort(byThenId(value, this.order))
    expect([answer.status, answer.code]).toEqual([200, 0])
    const data = answer.data as { list: { id: number }[]; total: number; page: number }
    expect([data.total, data.page]).toEqual([matching.length, this.page])
    expect(data.list.map((product) => product.id)).toEqual(
      matching.slice((this.page - 1) * this.pageSize, this.page * this.pageSize).map(([id]) => id),
    )
  }
  toString = () =>
    `ListProducts(${this.status}, ${this.sort}, ${this.order}, ${this.page}, ${this.pageSize})`
}

/** POST /sessions: the right password of a user signs in (email in any case); else 401 / 40102. */
class SignIn implements Command {
  constructor(
    readonly choice: number,
    readonly right: boolean,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = idOf(keys(model.users), this.choice, model.next.users)
    const user = model.users.get(id)
    const email = user ? user.email.toUpperCase() : `nobody${id}@x.test`
    const password = this.right ? 'password' : 'passw0rd'
    const answer = await send(real, 'POST', '/sessions', { email, password }, { token: null })
    if (!user || !this.right) {
      expect([answer.status, answer.code]).toEqual([401, 40102])
      return
    }
    expect([answer.status, answer.code]).toEqual([201, 0])
    const session = answer.data as { token: string; user: { id: number } }
    expect(session.user.id).toBe(id)
    model.sessions.push({ token: session.token, userId: id, live: true })
  }
  toString = () => `SignIn(${this.choice}, ${this.right})`
}

/** A session's token used to read its own user, or to sign out: 401 / 40101 once revoked or its user deleted. */
class UseSession implements Command {
  constructor(
    readonly choice: number,
    readonly signOut: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.sessions.length > 0
  async run(model: Model, real: Real) {
    const session = model.sessions[this.choice % model.sessions.length]!
    const answer = this.signOut
      ? await send(real, 'DELETE', '/sessions/current', undefined, { token: session.token })
      : await send(real, 'GET', `/users/${session.userId}`, undefined, { token: session.token })
    if (!session.live || !model.users.has(session.userId)) {
      expect([answer.status, answer.code]).toEqual([401, 40101])
      return
    }
    expect(answer.status).toBe(this.signOut ? 204 : 200)
    if (this.signOut) session.live = false
    else expect((answer.data as { id: number }).id).toBe(session.userId)
  }
  toString = () => `UseSession(${this.choice}, ${this.signOut ? 'sign out' : 'read'})`
}

type OrderSort = 'id' | 'status' | 'total'
/** Orders of one user, nested or filtered (`/orders?userId=`), by status, sorted: ties by id. */
class ListOrders implements Command {
  constructor(
    readonly nested: boolean,
    readonly userChoice: number,
    readonly status: OrderStatus | undefined,
    readonly sort: OrderSort,
    readonly order: 'asc' | 'desc',
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const userId = idOf(keys(model.users), this.userChoice, model.next.users)
    const query = new URLSearchParams({
      ...(this.nested ? {} : { userId: String(userId) }),
      ...(this.status ? { status: this.status } : {}),
      sort: this.sort,
      order: this.order,
      pageSize: '100',
    })
    const path = this.nested ? `/users/${userId}/orders` : '/orders'
    const answer = await send(real, 'GET', `${path}?${query}`)
    if (this.nested && !model.users.has(userId)) {
      expect([answer.status, answer.code]).toEqual([404, 40400])
      return
    }
    const value = ([id, order]: [number, ModelOrder]) =>
      this.sort === 'total' ? totalCents(order) : this.sort === 'status' ? order.status : id
    const expected = [...model.orders]
      .filter(([, order]) => order.userId === userId)
      .filter(([, order]) => this.status === undefined || order.status === this.status)
      .sort(byThenId(value, this.order))
      .map(([id]) => id)
    expect([answer.status, answer.code]).toEqual([200, 0])
    const data = answer.data as { list: { id: number }[]; total: number }
    expect([data.total, data.list.map((order) => order.id)]).toEqual([expected.length, expected])
  }
  toString = () =>
    `ListOrders(${this.nested ? 'nested' : 'userId'}, ${this.userChoice}, ${this.status}, ${this.sort}, ${this.order})`
}

/** POST /__sandbox/overrides: placing an order answers `status` the next `times` times. */
class OverridePlacing implements Command {
  constructor(
    readonly status: number,
    readonly times: number,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const answer = await send(real, 'POST', '/__sandbox/overrides', {
      method: 'POST',
      path: '/users/{user_id}/orders',
      times: this.times,
      response: { status: this.status, ...(this.status === 201 ? { data: { id: 999 } } : {}) },
    })
    expect(answer.status).toBe(201)
    model.overrides.push({ status: this.status, remaining: this.times })
  }
  toString = () => `OverridePlacing(${this.status}, ${this.times})`
}

/** DELETE /__sandbox/db: the seed's data again (its ids too), sessions ended, overrides kept. */
class ResetData implements Command {
  check = () => true
  async run(model: Model, real: Real) {
    expect((await send(real, 'DELETE', '/__sandbox/db')).status).toBe(204)
    Object.assign(model, structuredClone(model.seed))
    for (const session of model.sessions) session.live = false
  }
  toString = () => 'ResetData'
}

/** Everything the sandbox holds, read through the API, against the model. */
async function compare(model: Model, real: Real): Promise<void> {
  const all = async <T>(path: string) => {
    const answer = await send(real, 'GET', `${path}?pageSize=100`)
    expect(answer.status).toBe(200)
    const page = answer.data as { list: T[]; total: number }
    expect(page.total).toBe(page.list.length)
    return page.list
  }
  const users = await all<{ id: number; name: string; email: string }>('/users')
  expect(users.map(({ id, name, email }) => [id, name.toLowerCase(), email.toLowerCase()])).toEqual(
    [...model.users].map(([id, user]) => [id, user.name, user.email]),
  )
  const products = await all<{ id: number; stock: number; status: string }>('/products')
  expect(products.map(({ id, stock, status }) => [id, stock, status])).toEqual(
    [...model.products].map(([id, product]) => [id, product.stock, product.status]),
  )
  const orders = await all<{
    id: number
    userId: number
    status: string
    total: number
    items: { productId: number; quantity: number; unitPrice: number }[]
  }>('/orders')
  expect(
    orders.map(({ id, userId, status, total, items }) => [
      id,
      userId,
      status,
      Math.round(total * 100),
      items.map((item) => [item.productId, item.quantity, Math.round(item.unitPrice * 100)]),
    ]),
  ).toEqual(
    [...model.orders].map(([id, order]) => [
      id,
      order.userId,
      order.status,
      totalCents(order),
      order.items.map((item) => [item.productId, item.quantity, item.cents]),
    ]),
  )
}

/** The journal counts every request to place an order (CONTRACT C2), whatever it was answered. */
async function journalCount(model: Model, real: Real): Promise<void> {
  const query = new URLSearchParams({ method: 'POST', path: '/users/{user_id}/orders' })
  const answer = await send(real, 'GET', `/__sandbox/requests?${query}`)
  expect([answer.status, (answer.data as { total: number }).total]).toEqual([200, model.placings])
}

class Compare implements Command {
  check = () => true
  run = async (model: Model, real: Real) => {
    await compare(model, real)
    await journalCount(model, real)
  }
  toString = () => 'Compare'
}

const commands = [
  fc
    .tuple(fc.constantFrom(...NAMES), fc.constantFrom(...EMAILS))
    .map(([name, email]) => new CreateUser(name, email)),
  pick.map((choice) => new DeleteUser(choice)),
  fc
    .tuple(fc.constantFrom(...SKUS), fc.integer({ min: 0, max: 99_999 }), fc.nat({ max: 8 }))
    .map(([sku, cents, stock]) => new CreateProduct(sku, cents, stock)),
  fc
    .tuple(
      pick,
      fc.record(
        { stock: fc.nat({ max: 8 }), status: fc.constantFrom('active', 'inactive') },
        { requiredKeys: [] },
      ),
    )
    .map(([choice, changes]) => new PatchProduct(choice, changes)),
  pick.map((choice) => new DeleteProduct(choice)),
  fc
    .tuple(fc.constantFrom<Role>('admin', 'admin', 'member'), pick, itemsArbitrary)
    .map(([role, user, items]) => new CreateOrder(role, user, items)),
  fc
    .tuple(fc.constantFrom<Role>('admin', 'member'), pick, itemsArbitrary)
    .map(([role, user, items]) => new CreateOrder(role, user, items)),
  fc
    .tuple(
      fc.constantFrom<Role>('admin', 'admin', 'member'),
      pick,
      fc.record(
        { name: fc.constantFrom(...NAMES), email: fc.constantFrom(...EMAILS) },
        { requiredKeys: [] },
      ),
    )
    .map(([role, choice, changes]) => new PatchUser(role, choice, changes)),
  pick.map((choice) => new MemberReads(choice)),
  fc
    .tuple(fc.constantFrom(503, 201, 409), fc.integer({ min: 1, max: 3 }))
    .map(([status, times]) => new OverridePlacing(status, times)),
  fc.constant(new ResetData()),
  fc
    .tuple(
      fc.boolean(),
      pick,
      fc.constantFrom<OrderStatus | undefined>(undefined, 'pending', 'paid', 'cancelled'),
      fc.constantFrom<OrderSort>('id', 'status', 'total'),
      fc.constantFrom('asc' as const, 'desc' as const),
    )
    .map((args) => new ListOrders(...args)),
  fc.tuple(pick, fc.boolean()).map(([choice, right]) => new SignIn(choice, right)),
  fc.tuple(pick, fc.boolean()).map(([choice, signOut]) => new UseSession(choice, signOut)),
  fc
    .tuple(
      fc.constantFrom(undefined, 'active' as const, 'inactive' as const),
      fc.constantFrom<SortField>('id', 'stock', 'price', 'sku'),
      fc.constantFrom('asc' as const, 'desc' as const),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 4 }),
    )
    .map((args) => new ListProducts(...args)),
  fc
    .tuple(
      pick,
      fc.constantFrom<OrderStatus>('pending', 'paid', 'shipped', 'delivered', 'cancelled'),
      fc.boolean(),
    )
    .map(([choice, status, put]) => new ChangeStatus(choice, status, put)),
  fc.tuple(pick, itemsArbitrary).map(([choice, items]) => new ChangeItems(choice, items)),
  fc
    .tuple(pick, fc.boolean())
    .map(([choice, representation]) => new DeleteOrder(choice, representation)),
  fc.constant(new Compare()),
]

const COUNTS = { users: 4, products: 4, orders: 3 }

/** A small sandbox and the model of what it holds, read from it once. */
async function setup(real: Real): Promise<{ model: Model; real: Real }> {
  const list = async <T>(path: string) =>
    ((await send(real, 'GET', `${path}?pageSize=100`)).data as { list: T[] }).list
  const model: Model = {
    seed: undefined as never,
    overrides: [],
    placings: 0,
    sessions: [],
    users: new Map(),
    products: new Map(),
    orders: new Map(),
    next: { users: 5, products: 5, orders: 4 },
  }
  for (const user of await list<{ id: number; name: string; email: string }>('/users'))
    model.users.set(user.id, { name: user.name.toLowerCase(), email: user.email.toLowerCase() })
  for (const product of await list<{
    id: number
    sku: string
    price: number
    stock: number
    status: 'active' | 'inactive'
  }>('/products'))
    model.products.set(product.id, {
      sku: product.sku,
      cents: Math.round(product.price * 100),
      stock: product.stock,
      status: product.status,
    })
  for (const order of await list<{
    id: number
    userId: number
    status: OrderStatus
    items: { productId: number; quantity: number; unitPrice: number }[]
  }>('/orders'))
    model.orders.set(order.id, {
      userId: order.userId,
      status: order.status,
      items: order.items.map((item) => ({
        productId: item.productId,
        quantity: item.quantity,
        cents: Math.round(item.unitPrice * 100),
      })),
    })
  const { users, products, orders, next } = model
  model.seed = structuredClone({ users, products, orders, next })
  return { model, real }
}

/** Runs `runs` random sequences, each on a sandbox of its own that `fresh` gives. */
async function check(runs: number, fresh: () => Real): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (sequence) => {
      const { model, real } = await setup(fresh())
      await fc.asyncModelRun(() => ({ model, real }), sequence)
      await compare(model, real)
      await journalCount(model, real)
    }),
    { numRuns: runs, seed: SEED },
  )
}

describe('the shop against a model of the contract, random sequences of requests', () => {
  it(`in process: ids, uniqueness, stock, cascades, order states, sessions (${RUNS} runs)`, async () => {
    await check(RUNS, () => {
      const sandbox = createSandbox({ baseUrl: BASE, ...COUNTS })
      return { fetch: (path, init) => sandbox.fetch(`${BASE}${path}`, init) }
    })
  }, 120_000)

  // Over real HTTP, both transports, each sequence in a named sandbox of its own (X-Sandbox-Id):
  // the same answers, and no sequence sees another's writes.
  for (const transport of ['fast', 'msw'] as const) {
    describe(`a server (--transport ${transport})`, () => {
      let server: SandboxServer
      beforeAll(async () => {
        server = await createSandboxServer({ port: 0, transport, ...COUNTS })
      })
      afterAll(() => server.close())

      it(`gives the model's answers (${Math.ceil(RUNS / 4)} runs)`, async () => {
        let run = 0
        await check(Math.ceil(RUNS / 4), () => {
          const name = `model-${transport}-${run++}`
          return {
            fetch: (path, init) =>
              fetch(`${server.url}${path}`, {
                ...init,
                headers: { ...(init.headers as Record<string, string>), 'x-sandbox-id': name },
              }),
          }
        })
      }, 120_000)
    })
  }
})
