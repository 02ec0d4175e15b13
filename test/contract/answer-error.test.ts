import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../contract/api-error.js'
import { UniqueConflict } from '../../db/row.js'

const limit = Error.stackTraceLimit
afterEach(() => {
  Error.stackTraceLimit = limit
})

describe('errors that are answers: no stack captured, nothing else changed', () => {
  it('an ApiError is an Error with its name, message, status, code and headers, and a stack of one line', () => {
    const error = ApiError.of('notFound', 'user 42 not found')
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ name: 'ApiError', status: 404, code: 40400 })
    expect(String(error)).toBe('ApiError: user 42 not found')
    expect(error.stack).toBe('ApiError: user 42 not found')
    expect(ApiError.of('authenticationRequired').headers).toEqual({ 'www-authenticate': 'Bearer' })
  })

  it('a UniqueConflict keeps its fields and captures no stack either', () => {
    const error = new UniqueConflict('users', 'email', 'a@example.com', 3, 'A@example.com')
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ table: 'users', index: 'email', holder: 3 })
    expect(error.stack?.split('\n')).toHaveLength(1)
  })

  it("leaves the process's own stack limit as it was, and other errors keep their stacks", () => {
    Error.stackTraceLimit = 7
    ApiError.of('notFound')
    expect(Error.stackTraceLimit).toBe(7)
    expect(() => new ApiError(400, 40000, Symbol('no text') as never)).toThrow(TypeError)
    expect(Error.stackTraceLimit).toBe(7)
    const fault = new Error('a fault')
    expect(fault.stack?.split('\n').length).toBeGreaterThan(1)
  })
})
