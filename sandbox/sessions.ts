/** How many live session tokens one sandbox keeps before it forgets the oldest. */
const MAX_SESSIONS = 10_000

/**
 * Session tokens issued by `POST /sessions`: each maps to a user until it expires or is
 * revoked. Expired tokens are forgotten as they are met, and the oldest beyond a cap.
 */
export class Sessions {
  readonly #tokens = new Map<string, { userId: number; expiresAt: number }>()

  constructor(
    private readonly ttlSeconds: number,
    private readonly clock: () => number,
  ) {}

  /** Issues a new token for a user. */
  create(userId: number): { token: string; expiresAt: string } {
    const token = `sbx_${randomToken()}`
    const expiresAt = this.clock() + this.ttlSeconds * 1000
    this.#tokens.set(token, { userId, expiresAt })
    if (this.#tokens.size > MAX_SESSIONS) {
      const oldest = this.#tokens.keys().next().value
      if (oldest !== undefined) this.#tokens.delete(oldest)
    }
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

  /** Revokes a token; later requests with it get 401 / 40101. */
  revoke(token: string): void {
    this.#tokens.delete(token)
  }

  clear(): void {
    this.#tokens.clear()
  }
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  let text = ''
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0')
  return text
}
