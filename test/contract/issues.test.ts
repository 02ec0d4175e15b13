import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { describeIssue, safeParseReporting } from '../../contract/issues.js'

describe('safeParseReporting', () => {
  const schema = z.object({ name: z.string().trim().min(2), role: z.enum(['a', 'b']).default('a') })

  it('gives what zod gives for a value the schema takes', () => {
    const value = { name: '  Ann ', extra: 1 }
    expect(safeParseReporting(schema, value)).toEqual(schema.safeParse(value))
    expect(safeParseReporting(schema, value).data).toEqual({ name: 'Ann', role: 'a' })
  })

  it('reports the refused value with each issue, so messages can quote it', () => {
    const result = safeParseReporting(schema, { name: 'x', role: 'c' })
    expect(result.success).toBe(false)
    expect(result.error!.issues.map((issue) => issue.input)).toEqual(['x', 'c'])
    expect(result.error!.issues.map((issue) => describeIssue(issue))).toEqual(
      schema
        .safeParse({ name: 'x', role: 'c' }, { reportInput: true })
        .error!.issues.map((issue) => describeIssue(issue)),
    )
  })
})
