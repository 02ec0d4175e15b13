import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { expect } from 'vitest'

/** The tools CONTRACT C6 names, in its order. */
export const contractTools = [
  'describe_api',
  'call_api',
  'get_data',
  'list_scenarios',
  'use_scenario',
  'add_override',
  'list_overrides',
  'remove_override',
  'read_journal',
  'get_settings',
  'set_settings',
  'reset',
]

export interface Result {
  isError: boolean
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's structured answer, read by the test
  structured: any
}

/** Calls a tool with the SDK's client; its text, structured content and whether it is an error. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Result> {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as Array<{ type: string; text: string }>
  expect(content[0]?.type).toBe('text')
  return {
    isError: result.isError === true,
    text: content[0]!.text,
    structured: result.structuredContent,
  }
}
