import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Sandbox } from '../../sandbox/create-sandbox.js'
import type { AllowedHosts, hostGuard, OriginPolicy } from '../guard.js'
import type { Frame } from '../msw-transport.js'
import type { BodyBudget } from '../node-request.js'
import type { requestLog } from '../request-log.js'

/** What the Node server's front knows of the server it is part of (one object per server). */
export interface FrontServer {
  readonly sandbox: Sandbox
  readonly bodies: BodyBudget
  readonly origins: OriginPolicy
  readonly hosts: ReturnType<typeof hostGuard>
  /** Whether a Host names the server by a name it was given (the console's own origin). */
  readonly named: (host: string) => boolean
  readonly allowedHosts: AllowedHosts
  readonly log: ReturnType<typeof requestLog> | undefined
  /** The `msw` transport's frame, or null for the lean path. */
  readonly msw: Frame | null
  /** The server is closing: answers close their connection. */
  draining: boolean
}

/** One request at the Node server's front (server/front/index.ts). */
export class Front {
  /** Headers every answer of this request carries (its id, CORS), written with the answer at once. */
  readonly frame: Record<string, string> = {}
  /** The request target as a URL (the target step sets it before any step that reads it). */
  url!: URL

  constructor(
    readonly server: FrontServer,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}
}
