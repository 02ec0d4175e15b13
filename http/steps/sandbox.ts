import * as z from 'zod'
import type { ApiRequest } from '../../contract/exchange.js'
import { isPending } from '../../contract/exchange.js'
import { clip, invalidParameter } from '../../contract/params.js'
import type { Step } from '../compose.js'
import type { Answer, Context } from '../context.js'
import { isControlPath } from '../context.js'

/**
 * The sandbox (CONTRACT C1): `X-Sandbox-Id` names the caller's own copy of the data (created on
 * first use, in the scenario `X-Sandbox-Scenario` names: C5); none means the default one. A name
 * that is not one is 400 / 40000, a scenario the sandbox lacks 404 / 40400. A request waits for
 * a replacement of its sandbox's data asked for before it (a scenario switch being made). Once
 * the answer is made, the named sandboxes are kept within their memory budget.
 */
export const sandbox: Step<Context, Answer> = {
  name: 'sandbox',
  run(c, next) {
    const scenario = c.request.header('x-sandbox-scenario')
    const waiting = scenario === null ? null : c.host.scenarioReady(scenario)
    if (waiting !== null) return waiting.then(() => sandbox.run(c, next))
    const instance = c.host.instanceFor(sandboxId(c.request), scenario)
    c.instance = instance
    // A switch, reset or document asked for before this request and not yet applied goes first
    // (the control API's requests wait, or take their place in line, by their operation).
    const ahead = isControlPath(c.request.url.pathname) ? null : instance.replacement
    let answer: Answer
    try {
      answer = ahead === null ? next(c) : ahead.then(() => next(c))
    } catch (error) {
      c.host.settle(instance)
      throw error
    }
    if (!isPending(answer)) {
      c.host.settle(instance)
      return answer
    }
    return answer.finally(() => c.host.settle(instance))
  },
}

const SANDBOX_ID = /^[A-Za-z0-9_.-]{1,64}$/

/** What an `X-Sandbox-Id` may be, as a schema (the MCP server's tools take one). */
export const sandboxIdSchema = () =>
  z.string().regex(SANDBOX_ID, 'must be 1-64 characters of A-Z a-z 0-9 _ . -')

/** Why a sandbox's name is not one `X-Sandbox-Id` may give, or null. */
export function sandboxIdProblem(name: unknown): string | null {
  return typeof name === 'string' && SANDBOX_ID.test(name)
    ? null
    : `must be 1-64 characters of A-Z a-z 0-9 _ . -, got ${typeof name === 'string' ? `'${clip(name)}'` : typeof name}`
}

/** The sandbox a request names, or null for the default one. */
export function sandboxId(request: ApiRequest): string | null {
  const name = request.header('x-sandbox-id')
  if (name === null) return null
  const problem = sandboxIdProblem(name)
  if (problem) throw invalidParameter(`X-Sandbox-Id ${problem}`)
  return name
}
