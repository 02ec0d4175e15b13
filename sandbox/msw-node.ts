/**
 * `./msw.js` for Node (the ESM build swaps it in: scripts/build-esm.ts): msw's HTTP handlers
 * without msw's main entry. In msw 2 that entry also loads the GraphQL, WebSocket and SSE
 * handlers and the `graphql` package, ~90 ms of a fresh test file on the bench's machine, more
 * than everything else the sandbox does before its first answer; a test file that uses the
 * sandbox needs none of it (setupServer comes from `msw/node`, which does not load it either).
 * The installed msw's version picks the entry that exports the handlers (`./msw-entry.ts`; an
 * msw that exports neither gets its main entry loaded, as before), and
 * the import is left to Node at run time (bundlers told to skip it).
 */
import { STATUS_CODES } from 'node:http'
import { createRequire } from 'node:module'
import type * as Msw from 'msw'
import { mswHttpEntry, mswNodeProblem } from './msw-entry.js'

/** The installed msw's version; a missing msw (a peer dependency) said in so many words. */
function mswVersion(): string {
  try {
    return (createRequire(import.meta.url)('msw/package.json') as { version: string }).version
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error
    throw new Error('shop-sandbox needs msw 2.15+ or 3 installed beside it: npm install msw', {
      cause: error,
    })
  }
}

const installed = mswVersion()
const httpEntry = mswHttpEntry(installed)
const problem = mswNodeProblem(installed, process.versions.node)
if (problem) console.warn(`shop-sandbox: warning: ${problem}`)

/** The handlers' entry of the installed msw; its main entry if that msw exports no such path. */
async function loadHttp(): Promise<typeof Msw.http> {
  try {
    return ((await import(/* webpackIgnore: true */ /* @vite-ignore */ httpEntry)) as typeof Msw)
      .http
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error
    return (await import('msw')).http
  }
}

export const http = await loadHttp()

/** Statuses whose answer has no body (Fetch refuses one; msw's `HttpResponse` drops it too). */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/**
 * An answer as msw's `HttpResponse` makes it in Node: the status's reason phrase as its
 * `statusText` (Node's, as the sandbox's server sends it) and no body where none may be.
 */
export function respond(
  body: string | Uint8Array | null,
  init: ResponseInit & { status: number },
): Response {
  return new Response(NULL_BODY.has(init.status) ? null : (body as BodyInit | null), {
    ...init,
    statusText: init.statusText ?? STATUS_CODES[init.status] ?? '',
  })
}

/** A network error (`Response.error()`), what a dropped connection looks like to `fetch`. */
export function failed(): Response {
  return Response.error()
}

/**
 * msw's `passthrough()`, the same answer msw 2 and 3 make and recognise (a 302 `Passthrough`
 * with `x-msw-intention: passthrough`; test/sandbox/msw-kit.test.ts compares it with msw's):
 * msw 2 exports it only from its main entry.
 */
export function passthrough(): Response {
  return new Response(null, {
    status: 302,
    statusText: 'Passthrough',
    headers: { 'x-msw-intention': 'passthrough' },
  })
}
