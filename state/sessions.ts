import { ApiError } from '../contract/api-error.js'
import { limitFlag } from './limits.js'

/**
 * Session tokens issued by `POST /sessions`: each maps to a user until it expires or is
 * revoked. Expired tokens are forgotten as they are met; at the cap, a new one is refused
 * (429) rather than silently ending someone else's session.
 */
export class Sessions {
  readonly #tokens = new Map<string, { userId: number; expiresAt: number }>()

  constructor(
    private readonly ttlSeconds: number,
    private readonly clock: () => number,
    private readonly capacity: number,
  ) {}

  /** How many tokens are kept (expired ones included until they are met). */
  get size(): number {
    return this.#tokens.size
  }

  /** Issues a new token for a user. */
  create(userId: number): { token: string; expiresAt: string } {
    if (this.#tokens.size >= this.capacity) this.#forgetExpired()
    if (this.#tokens.size >= this.capacity) {
      throw ApiError.of(
        'rateLimited',
        `too many live sessions in this sandbox (${this.capacity}): end one with DELETE /sessions/current, wait for one to expire, or start with a larger ${limitFlag('maxSessions')}`,
      )
    }
    const token = `sbx_${randomToken()}`
    const expiresAt = this.clock() + this.ttlSeconds * 1000
    this.#tokens.set(token, { userId, expiresAt })
    return { token, expiresAt: new Date(expiresAt).toISOString() }
  }

  /** The user a live token stands for, if any. */
  userFor(token: string): number | undefined {
    const session = this.#tokens.get(token)
    if (!session) return undefined
    if (session.expiresAt <= this.clock()) {
      this.#tokens.delete(token)
      return undefined
    }
    return session.userId
  }

  /** Revokes a token; later requests with it get 401 / 40101. Answers the session it ended. */
  revoke(token: string): { token: string; expiresAt: string } | null {
    const session = this.#tokens.get(token)
    this.#tokens.delete(token)
    return session ? { token, expiresAt: new Date(session.expiresAt).toISOString() } : null
  }

  clear(): void {
    this.#tokens.clear()
  }

  #forgetExpired(): void {
    const now = this.clock()
    for (const [token, session] of this.#tokens)
      if (session.expiresAt <= now) this.#tokens.delete(token)
  }
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  let text = ''
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0')
  return text
}
