import type { Order } from '../shop/order-schema.js'
import type { Product } from '../shop/product-schema.js'
import type { ProgressReporter } from './progress.js'
import { Table } from './table.js'
import type { User } from '../shop/user-schema.js'

/** The whole data set as one JSON document: what `GET /__sandbox/db` returns. */
export interface DbDocument {
  users: User[]
  products: Product[]
  orders: Order[]
}

/** A document plus the id sequences, so a restore continues exactly where the snapshot was. */
export interface DbSnapshot extends DbDocument {
  nextIds: { users: number; products: number; orders: number }
}

/** Key under which a name or e-mail is unique: case-insensitive. */
export function foldCase(value: string): string {
  const folded = value.toLowerCase()
  // Keep the original when nothing changed: the index then holds no second copy of the string.
  return folded === value ? value : folded
}

/** What must be unique in each collection, and under which key (CONTRACT B1). */
export const uniqueKeys = {
  users: {
    name: (user: User) => foldCase(user.name),
    email: (user: User) => foldCase(user.email),
  },
  products: { sku: (product: Product) => product.sku },
}

function createTables() {
  return {
    users: new Table<User, 'name' | 'email'>({
      name: 'users',
      unique: { name: { key: uniqueKeys.users.name }, email: { key: uniqueKeys.users.email } },
    }),
    products: new Table<Product, 'sku'>({
      name: 'products',
      unique: { sku: { key: uniqueKeys.products.sku } },
    }),
    orders: new Table<Order, never, 'userId'>({
      name: 'orders',
      groups: { userId: { key: (order) => order.userId } },
    }),
  }
}

/**
 * One sandbox's data: users, products and orders, each an indexed {@link Table}.
 * Writes go through the tables; call {@link Store.changed} after a logical change so
 * subscribers (persistence, cross-tab sync) hear about it once.
 *
 * @example
 * const user = store.users.get(1)
 * store.users.findUnique('email', 'admin@example.com')
 */
export class Store {
  readonly users
  readonly products
  readonly orders
  readonly #listeners = new Set<() => void>()

  constructor(snapshot?: DbSnapshot, onProgress?: ProgressReporter) {
    const tables = createTables()
    this.users = tables.users
    this.products = tables.products
    this.orders = tables.orders
    if (snapshot) this.restore(snapshot, onProgress)
  }

  /** A copy of the data and id sequences. Records are frozen, so this is cheap. */
  snapshot(): DbSnapshot {
    return {
      users: [...this.users.all()],
      products: [...this.products.all()],
      orders: [...this.orders.all()],
      nextIds: {
        users: this.users.nextId,
        products: this.products.nextId,
        orders: this.orders.nextId,
      },
    }
  }

  /** The data as one JSON document. */
  toJSON(): DbDocument {
    return {
      users: [...this.users.all()],
      products: [...this.products.all()],
      orders: [...this.orders.all()],
    }
  }

  /** Replaces all data with a snapshot or a (validated) document, then notifies once. */
  restore(snapshot: DbDocument | DbSnapshot, onProgress?: ProgressReporter): void {
    const nextIds = 'nextIds' in snapshot ? snapshot.nextIds : undefined
    const total = snapshot.users.length + snapshot.products.length + snapshot.orders.length
    let done = 0
    const indexed =
      onProgress &&
      ((count: number) => {
        done += count
        onProgress('indexing', done, total)
      })
    this.users.load(snapshot.users, nextIds?.users, indexed)
    this.products.load(snapshot.products, nextIds?.products, indexed)
    this.orders.load(snapshot.orders, nextIds?.orders, indexed)
    this.changed()
  }

  /** Tells subscribers that the data changed. */
  changed(): void {
    for (const listener of this.#listeners) listener()
  }

  /** Calls `listener` after every change; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
