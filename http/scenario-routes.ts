import * as z from 'zod'
import { documented } from '../contract/registry.js'
import { once } from '../contract/once.js'
import { noContent, success } from '../contract/envelope.js'
import { pagingSchema } from '../resources/query.js'
import { runtimeConfigSchema } from '../state/runtime-config.js'
import type { SandboxInstance } from '../state/instance.js'
import type { ControlOperation } from './control-types.js'
import { pageOf } from './control-types.js'
import { validateBody } from './body.js'
import { madeDurable } from './durable.js'
import type { Route } from './router.js'

/** A scenario as `GET /__sandbox/scenarios` lists it (CONTRACT C5). */
export const scenarioSchema = once(() =>
  documented(
    z.object({
      name: z.string(),
      description: z.string(),
      sets: documented(
        z.object({
          data: documented(z.enum(['seed', 'document', 'function']).nullable(), {
            description:
              "Its data: generated from a seed and counts, a document, or a function over the seeded data; null: the sandbox's own.",
          }),
          overrides: documented(z.int(), { description: 'The overrides it starts with.' }),
          settings: runtimeConfigSchema().partial(),
        }),
        { description: 'What it sets.' },
      ),
    }),
    { id: 'Scenario' },
  ),
)

/** The body of `PUT /__sandbox/scenario`. */
export const scenarioChoiceSchema = once(() =>
  documented(
    z.strictObject({
      name: documented(z.string().min(1).max(200), {
        description: 'A scenario GET /__sandbox/scenarios lists.',
      }),
    }),
    { id: 'ScenarioChoice' },
  ),
)

/** The scenario a sandbox is in, and its data's counts once there. */
const currentSchema = once(() =>
  documented(
    z.object({
      scenario: scenarioSchema(),
      counts: z.record(z.string(), z.int()),
    }),
    { id: 'SandboxScenario' },
  ),
)

const current = (instance: SandboxInstance) => ({
  scenario: instance.scenario.summary(),
  counts: instance.store.counts(),
})

/**
 * The control routes of CONTRACT C5's scenarios: list them, read and choose the caller's
 * (`X-Sandbox-Id` as everywhere), and reset a sandbox to its scenario.
 */
export function scenarioRoutes(): Route<ControlOperation>[] {
  return [
    {
      path: '/scenarios',
      operations: {
        GET: {
          docs: {
            operationId: 'listSandboxScenarios',
            summary: 'The scenarios a sandbox can be put in: default, then the API’s and your own',
            description:
              'Each with its one-line description and what it sets (data, overrides, settings).',
            success: { status: 200, data: scenarioSchema(), list: true },
            query: pagingSchema(),
          },
          run: ({ scenarios, request }) =>
            pageOf(
              scenarios.list().map((scenario) => scenario.summary()),
              request.url.searchParams,
            ),
        },
      },
    },
    {
      path: '/scenario',
      operations: {
        GET: {
          docs: {
            operationId: 'getSandboxScenario',
            summary: 'The scenario this sandbox is in',
            success: { status: 200, data: currentSchema() },
          },
          run: ({ instance }) => success(current(instance)),
        },
        PUT: {
          docs: {
            operationId: 'useSandboxScenario',
            summary: 'Put this sandbox in a scenario',
            description:
              'Its data, overrides and settings replace this sandbox’s (sessions end; the journal stays, each entry naming its scenario); a reset returns to it. An unknown name is 404 naming the known ones, closest first; the sandbox is left as it was.',
            success: { status: 200, data: currentSchema() },
            body: scenarioChoiceSchema(),
          },
          replaces: true,
          async run({ instance, scenarios, readJson }) {
            const { name } = validateBody(scenarioChoiceSchema(), await readJson(), {
              strict: false,
              closed: true,
              readOnly: [],
            })
            const scenario = scenarios.named(name)
            const now = await instance.replacing(async (turn) => {
              // Made and indexed in slices on first use (C3), then restored at once, in its
              // turn: after the switches and resets asked for before it.
              await scenario.prepared()
              await turn()
              instance.useScenario(scenario)
              return current(instance)
            })
            await madeDurable(instance)
            return success(now)
          },
        },
      },
    },
    {
      path: '/reset',
      operations: {
        POST: {
          docs: {
            operationId: 'resetSandboxToScenario',
            summary: 'Reset this sandbox to its scenario',
            description:
              'Data, overrides and settings back to its scenario’s; sessions end; the journal empties: what `sandbox.reset()` does, and `DELETE /__sandbox`.',
            success: { status: 204, data: null },
          },
          replaces: true,
          async run({ instance }) {
            await instance.inOrder(() => instance.reset())
            await madeDurable(instance)
            return noContent()
          },
        },
      },
    },
  ]
}
