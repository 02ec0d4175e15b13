import { describe, expect, it } from 'vitest'
import { startSandbox } from '../../browser/index.js'

describe('startSandbox: the worker’s own options', () => {
  it.each([
    [{ persist: 'yes' }, 'Invalid sandbox options: persist: must be a boolean or an object'],
    [{ persist: { kee: 'a' } }, 'persist.key: is required'],
    [{ persist: { key: '' } }, 'persist.key: '],
    [{ console: 'yes' }, 'console: must be a boolean or an object'],
    [{ console: { opne: true } }, 'console.opne: is not a known field'],
    [{ quiet: 'no' }, 'quiet: must be a boolean'],
    [{ serviceWorkerUrl: 5 }, 'serviceWorkerUrl: must be a string'],
  ])(
    '%j is refused before anything starts, naming it (it failed in IndexedDB’s words, or was taken)',
    async (options, message) => {
      await expect(startSandbox(options as never)).rejects.toThrow(message)
    },
  )
})
