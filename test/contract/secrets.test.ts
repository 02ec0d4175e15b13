import { describe, expect, it } from 'vitest'
import { redactJsonValue } from '../../contract/secrets.js'

describe('redactJsonValue (what --record writes for a JSON body)', () => {
  it('blanks secret fields and keeps every object’s keys in the order they came', () => {
    const body = JSON.parse(
      '{"code":0,"message":"success","data":{"path":"/a","query":{"z":1,"a":2},"token":"t0ps3cret","list":[{"b":1,"a":2}]},"__proto__":{"x":1}}',
    ) as unknown
    const redacted = redactJsonValue(body)
    expect(JSON.stringify(redacted)).toBe(
      '{"code":0,"message":"success","data":{"path":"/a","query":{"z":1,"a":2},"token":"[redacted]","list":[{"b":1,"a":2}]},"__proto__":{"x":1}}',
    )
    // A copy: the value given is left as it was.
    expect((body as { data: { token: string } }).data.token).toBe('t0ps3cret')
  })
})
