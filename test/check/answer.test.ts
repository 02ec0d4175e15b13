import { describe, expect, it } from 'vitest'
import { read } from '../../check/answer.js'

const answer = (text: string) =>
  new Response(text, { status: 200, headers: { 'content-type': 'application/json' } })

describe("the drift check's reading of a target's answer", () => {
  it('parses a page of records, and no answer wider than 100,000 keys and items or deeper than 64 levels', async () => {
    const page = { code: 0, data: { list: [{ id: 1, name: 'a,b' }], total: 1 } }
    expect((await read(answer(JSON.stringify(page)))).body).toEqual(page)
    const wide = { code: 0, data: { list: [{ id: 1 }], extra: {} as Record<string, number> } }
    for (let index = 0; index < 150_000; index++) wide.data.extra[`k${index}`] = index
    const refused = await read(answer(JSON.stringify(wide)))
    expect(refused.body).toBeNull()
    expect(refused.text).toBe('(JSON with more than 100000 keys and list items: not read)')
    const deep = await read(answer(`${'['.repeat(70)}${']'.repeat(70)}`))
    expect(deep.body).toBeNull()
    expect(deep.text).toBe('(JSON nested deeper than 64 levels: not read)')
  })
})
