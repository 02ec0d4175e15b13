import { HttpResponse, http, passthrough } from 'msw'

/**
 * What the sandbox's MSW handlers take from msw: `http` to make them, and the answers they
 * return. This one reads msw's main entry, as a browser bundle and the CommonJS build do. The
 * ESM build for Node loads `./msw-node.js` in its place (scripts/build-esm.ts), which loads
 * only msw's HTTP handlers: the same names, the same answers.
 */
export { http, passthrough }

/** An answer as msw's `HttpResponse` makes it (the reason phrase; cookies forwarded in a page). */
export function respond(
  body: string | Uint8Array | null,
  init: ResponseInit & { status: number },
): Response {
  return new HttpResponse(body as BodyInit | null, init)
}

/** A network error (`Response.error()`), what a dropped connection looks like to `fetch`. */
export function failed(): Response {
  return HttpResponse.error()
}
