import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { success } from '../../contract/envelope.js'
import { isPending } from '../../contract/exchange.js'

describe('isPending: an answer on its way, from any realm', () => {
  it('tells a promise from a ready answer, also a promise of another realm (Jest runs code in one)', async () => {
    const ready = success({ id: 1 })
    const foreign = runInNewContext('Promise.resolve(answer)', { answer: ready }) as Promise<
      typeof ready
    >
    expect(foreign instanceof Promise).toBe(false)
    expect(isPending(foreign)).toBe(true)
    expect(isPending(Promise.resolve(ready))).toBe(true)
    expect(isPending(ready)).toBe(false)
    expect(await foreign).toBe(ready)
  })
})
