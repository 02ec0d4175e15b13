import { jsonShapeExceeds, MAX_JSON_DEPTH, openersExceed } from '../http/body.js'
import { defaultLimits } from '../state/limits.js'

/**
 * CONTRACT C4's drift check: probes a deployment of the real API and reports where it differs
 * from the contract the sandbox serves. Every probe and expectation comes from the same catalog
 * the sandbox is made of (routes, schemas, query rules, permissions, codes): what does not
 * depend on data (a bad query, a missing id, no token, a wrong method) is asked of an
 * in-process sandbox of that catalog too (the oracle) and the two answers compared; what does
 * (a page, a sort, a filter) is checked against the rule on the target's own records. So the
 * check cannot disagree with the sandbox: run against the sandbox, it finds no drift.
 */

import type { Reply } from './report.js'

/** Bytes of a target's answer read (decoded); the rest is not read (a gzip bomb, an endless body). */
export const ANSWER_LIMIT = defaultLimits.maxDocumentBytes
/**
 * Objects and arrays, and keys and list items (its commas outside strings), of a target's
 * answer parsed at most: a page of 100 records holds a few thousand. Past it, one record of 500,000 keys took the check a
 * minute and a gigabyte.
 */
const ANSWER_ENTRIES = 100_000

/** A target's answer, read within `limit` bytes and parsed when its shape allows (see below). */
export async function read(response: Response, limit = Number.POSITIVE_INFINITY): Promise<Reply> {
  let text = ''
  if (response.body) {
    const decoder = new TextDecoder()
    const reader = response.body.getReader()
    let size = 0
    for (;;) {
      const { done, value: chunk } = await reader.read()
      if (done) break
      size += chunk.byteLength
      if (size > limit) {
        await reader.cancel().catch(() => {})
        return {
          status: response.status,
          headers: response.headers,
          body: null,
          text: `(an answer longer than ${limit} bytes: not read further)`,
        }
      }
      text += decoder.decode(chunk, { stream: true })
    }
    text += decoder.decode()
  }
  // Nested past what the contract takes in a request (C3), or more keys and items than any
  // page of records holds: not parsed (the parse, and every walk of the value after it, would
  // cost the check far more than it cost the target to send).
  const exceeds = openersExceed(text, ANSWER_ENTRIES)
    ? 'values'
    : jsonShapeExceeds(text, MAX_JSON_DEPTH, ANSWER_ENTRIES)
  const shape =
    exceeds === 'values'
      ? `with more than ${ANSWER_ENTRIES} objects and arrays`
      : exceeds === 'commas'
        ? `with more than ${ANSWER_ENTRIES} keys and list items`
        : exceeds === 'depth'
          ? `nested deeper than ${MAX_JSON_DEPTH} levels`
          : null
  if (shape !== null)
    return {
      status: response.status,
      headers: response.headers,
      body: null,
      text: `(JSON ${shape}: not read)`,
    }
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // Not JSON: the envelope check says so.
  }
  return { status: response.status, headers: response.headers, body, text }
}
