import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { speak } from './stdout.js'
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { describeApi, openApiOf } from './describe.js'
import { Flow, lineGuard, MAX_LINE_BYTES, refuseLine } from './stdio.js'
import type { Target } from './target.js'
import type { ToolResult } from './tools.js'
import { callTool, controlObject, inputJsonSchema, refused, tools } from './tools.js'

/** JSON-RPC error code of `resources/read` for an unknown URI (MCP specification, Resources). */
const RESOURCE_NOT_FOUND = -32002
/**
 * JSON-RPC error code of a `resources/read` refused for load: JSON-RPC names none for "busy", and
 * leaves -32000 to -32099 to servers; -32603 (internal error) would say the server failed.
 */
export const SERVER_BUSY = -32000

/** The resources the server offers for context: the OpenAPI document and a reference page. */
const resources = [
  {
    uri: 'shop-sandbox://openapi.json',
    name: 'openapi',
    title: 'The OpenAPI 3.1 document of the API and the control API',
    mimeType: 'application/json',
  },
  {
    uri: 'shop-sandbox://reference.md',
    name: 'reference',
    title: 'The API in short: resources, fields, query rules, routes, codes, tokens, scenarios',
    mimeType: 'text/markdown',
  },
]

/**
 * The sandbox as a Model Context Protocol server (CONTRACT C6), on the official SDK: its tools
 * (mcp/tools.ts) and resources, acting on `target`. Over stdio unless given a transport (a test
 * links one in process). Built on the SDK's low-level `Server`: the input schemas it lists are
 * the sandbox's own (made from its zod schemas), and bad input is an error result whose text
 * names the field in the contract's words.
 */
export async function serveMcp(
  target: Target,
  about: { name: string; version: string },
  transport: Transport = stdioTransport(),
): Promise<Server> {
  const calls = new Calls()
  const server = new Server(
    { name: about.name, version: about.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: `The sandbox of an HTTP API (${target.where}): call it with call_api as the admin, the member or nobody; see what was sent with read_journal; put it in a named state with use_scenario; make a route answer something else with add_override. describe_api tells the resources, fields, routes and codes.`,
    },
  )
  // Made once, on the first call: the tools do not change, and making their schemas took 4-10
  // ms a call (2,000 calls in one write held the process 8 s).
  let listed: {
    tools: Array<{ name: string; description: string; inputSchema: { type: 'object' } }>
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    listed ??= {
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: inputJsonSchema(tool) as { type: 'object' },
      })),
    }
    return listed
  })
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((one) => one.name === request.params.name)
    if (!tool)
      return {
        isError: true,
        content: [
          {
            type: 'text' as const,
            text: `no tool named ${String(request.params.name).slice(0, 100)} (tools: ${tools.map(({ name }) => name).join(', ')})`,
          },
        ],
      }
    const result = await calls.run(() => callTool(tool, request.params.arguments, target))
    if (result === null)
      return {
        isError: true,
        content: [{ type: 'text' as const, text: calls.refusal }],
      }
    return callToolResult(result)
  })
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }))
  // None: the two resources are fixed. Asked by clients of the resources capability (Inspector):
  // "method not found" read as a broken server.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [],
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const read = await calls.run(() => readResource(request.params.uri))
    if (read === null) throw new McpError(SERVER_BUSY, calls.refusal)
    return read
  })
  const readResource = async (uri: string) => {
    // Read as the tools read the control API: an answer that is not its envelope is said so.
    const control = (method: string, path: string) => controlObject(target, method, path, {})
    if (uri === resources[0]!.uri)
      return {
        contents: [
          {
            uri,
            mimeType: 'application/json',
            text: JSON.stringify(await openApiOf(target), null, 2),
          },
        ],
      }
    if (uri === resources[1]!.uri)
      return {
        contents: [
          { uri, mimeType: 'text/markdown', text: (await describeApi(target, control)).markdown },
        ],
      }
    // The MCP specification's code for a resource that is not there (the SDK names none).
    throw new McpError(
      RESOURCE_NOT_FOUND,
      `no resource ${uri.slice(0, 200)} (resources: ${resources.map((one) => one.uri).join(', ')})`,
    )
  }
  await server.connect(transport)
  if (transport instanceof FlowingStdio) transport.count()
  return server
}

/**
 * Calls run at once and waiting: an agent may send many, and each holds an answer in memory
 * until it is written. Past {@link Calls.waiting} waiting, a call is refused at once.
 */
class Calls {
  static readonly atOnce = 8
  static readonly waiting = 64
  readonly refusal = `too many calls at once (${Calls.atOnce} running, ${Calls.waiting} waiting): wait for answers before sending more`
  #running = 0
  #queue: Array<() => void> = []

  async run<T>(work: () => Promise<T>): Promise<T | null> {
    if (this.#running >= Calls.atOnce) {
      if (this.#queue.length >= Calls.waiting) return null
      await new Promise<void>((resolve) => this.#queue.push(resolve))
    } else this.#running++
    try {
      return await work()
    } finally {
      const next = this.#queue.shift()
      if (next) next()
      else this.#running--
    }
  }
}

/**
 * Stdio as the MCP server reads and writes it: each message line at most
 * {@link MAX_LINE_BYTES} (a longer one is refused with a JSON-RPC error, the session goes on),
 * and the process ends when the client closes stdin or stops reading stdout.
 */
function stdioTransport(): Transport {
  const flow = new Flow(process.stdout, Calls.atOnce + Calls.waiting)
  const stdin = lineGuard(
    process.stdin,
    (refusal) => {
      console.error(`shop-sandbox mcp: a message refused: ${refusal.message}`)
      speak(() => refuseLine(process.stdout, refusal))
    },
    MAX_LINE_BYTES,
    () => flow.gate(),
  )
  process.stdin.once('end', () => process.exit(0))
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE')
      console.error(`shop-sandbox mcp: cannot write to stdout: ${error.message}`)
    process.exit(error.code === 'EPIPE' ? 0 : 1)
  })
  return new FlowingStdio(stdin, process.stdout, flow)
}

/** The SDK's stdio transport telling {@link Flow} of each request read and each answered. */
class FlowingStdio extends StdioServerTransport {
  constructor(
    stdin: Readable,
    readonly stdout: Writable,
    readonly flow: Flow,
  ) {
    super(stdin, stdout, { maxBufferSize: 2 * MAX_LINE_BYTES })
  }

  /**
   * Writes a message, done when its own bytes are written. The SDK's waited for stdout's next
   * 'drain', which a client reading as fast as answers come may never let it see: every answer
   * sent meanwhile stayed in memory (204 OpenAPI documents, the heap's limit, in 14 s of eight
   * calls at a time). How much is written and unread is {@link Flow}'s to bound.
   */
  override send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message) && message.id != null)
      this.flow.settled(message.id)
    return new Promise((resolve) => {
      speak(() => this.stdout.write(serializeMessage(message), () => resolve()))
    })
  }

  /** Once connected (the server has set its handler): counts the requests it reads. */
  count(): void {
    const handle = this.onmessage
    this.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message) {
        if ('id' in message) {
          this.flow.asked(message.id)
          // The SDK's parse of a call sets a `__proto__` key of the arguments as their
          // prototype: the key was gone before a tool saw it, and the call ran without it.
          // Refused here, in the words a tool's input check uses for any key it does not take.
          if (message.method === 'tools/call' && protoKeyed(message.params)) {
            void this.send({
              jsonrpc: '2.0',
              id: message.id,
              result: callToolResult(refused(['__proto__: is not a known field'])),
            })
            return
          }
        } else if (message.method === 'notifications/cancelled') {
          const id = (message.params as { requestId?: unknown } | undefined)?.requestId
          if (typeof id === 'string' || typeof id === 'number') this.flow.settled(id)
        }
      }
      handle?.(message)
    }
  }
}

/** Whether a call's arguments have a `__proto__` key of their own (as JSON.parse makes it). */
function protoKeyed(params: unknown): boolean {
  const args = (params as { arguments?: unknown } | undefined)?.arguments
  return typeof args === 'object' && args !== null && Object.hasOwn(args, '__proto__')
}

/** A tool's result as MCP sends it. */
function callToolResult(result: ToolResult) {
  return {
    content: [{ type: 'text' as const, text: result.text }],
    structuredContent: result.structured,
    ...(result.isError ? { isError: true } : {}),
  }
}
