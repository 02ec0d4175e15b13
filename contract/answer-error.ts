/** Whether the engine lets stack capture be switched off (V8 and JavaScriptCore; not a frozen `Error`). */
const limitWritable = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable === true

/**
 * An error that is an answer, not a fault: thrown to end a request with a status and a code
 * (`ApiError`) or to refuse a write (`UniqueConflict`), caught by the sandbox and never shown
 * with a stack. So it captures none, the costliest part of an error answer before
 * (docs/performance.md, "What an error costs"); `stack` is the name and the message alone.
 */
export class AnswerError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit
    if (limitWritable) Error.stackTraceLimit = 0
    try {
      super(message)
    } finally {
      // Restored even when the message is no string (super throws on a symbol).
      if (limitWritable) Error.stackTraceLimit = limit
    }
  }
}
