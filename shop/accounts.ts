/** The fixed accounts of CONTRACT B4: the first two seeded users. */
export const fixedAccounts = [
  { id: 1, name: 'admin', email: 'admin@example.com', status: 'active', role: 'admin' },
  { id: 2, name: 'member', email: 'member@example.com', status: 'active', role: 'member' },
] as const

/** The fixed tokens of CONTRACT B4 and the users they stand for. */
export const fixedTokens = [
  { token: 'sandbox-admin-token', userId: 1 },
  { token: 'sandbox-member-token', userId: 2 },
] as const

/** The password of every seeded user. */
export const SEED_PASSWORD = 'password'

/** The fixed admin token: user 1, admin@example.com. */
export const ADMIN_TOKEN = fixedTokens[0].token
/** The fixed member token: user 2, member@example.com. */
export const MEMBER_TOKEN = fixedTokens[1].token
