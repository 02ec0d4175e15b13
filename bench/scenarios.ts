/** One load scenario: the same request against the sandbox and the baseline. */
export interface Scenario {
  name: string
  method: 'GET' | 'POST'
  path: string
  /** Builds a body (POST) from `n`, a text no other request of the bench uses. */
  body?: (n: string) => string
  /** Spread over this many named sandboxes (`X-Sandbox-Id: team-<n>`), in turn. */
  sandboxes?: number
}

export const scenarios: Scenario[] = [
  { name: 'by id', method: 'GET', path: '/users/123' },
  { name: 'first page', method: 'GET', path: '/users?page=1&pageSize=20' },
  {
    name: 'filtered + sorted + keyword',
    method: 'GET',
    path: '/users?status=active&keyword=an&sort=name&order=desc&pageSize=20',
  },
  { name: 'nested orders page', method: 'GET', path: '/users/123/orders?pageSize=20' },
  {
    name: 'POST /users',
    method: 'POST',
    path: '/users',
    body: (n) =>
      JSON.stringify({
        name: `bench-${process.pid}-${n}`,
        email: `bench-${process.pid}-${n}@example.com`,
      }),
  },
]

/** The data sizes: users, and products and orders in the seed's default proportions. */
export function countsFor(users: number) {
  return { users, products: 30, orders: users * 2 }
}
