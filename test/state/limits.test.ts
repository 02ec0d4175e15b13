import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../../index.js'
import { heapDefaults } from '../../state/limits.js'

const MiB = 1024 * 1024

/** The heap limit as the defaults read it (a real one cannot be set on cue in a running process). */
function heapLimit(limit: number): void {
  const real = process.getBuiltinModule.bind(process)
  const heap = { getHeapStatistics: () => ({ heap_size_limit: limit, used_heap_size: 0 }) }
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) =>
    id === 'node:v8' ? heap : real(id)) as never)
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('memory bounds shared from the heap limit', () => {
  it('in process, under a 512 MB heap: a quarter for the sandboxes and for writes, a sixty-fourth for overrides', () => {
    heapLimit(512 * MiB)
    const { limits } = createSandbox().options
    expect(limits.sandboxesMemory).toBe(128 * MiB)
    expect(limits.writtenBytes).toBe(128 * MiB)
    expect(limits.overrides.bytes).toBe(8 * MiB)
  })

  it('in process, under a large heap: at most 256 MB, 256 MB and 16 MB', () => {
    heapLimit(8192 * MiB)
    const { limits } = createSandbox().options
    expect(limits.sandboxesMemory).toBe(256 * MiB)
    expect(limits.writtenBytes).toBe(256 * MiB)
    expect(limits.overrides.bytes).toBe(16 * MiB)
  })

  it('on the server: the same shares, at most 512 MB, 512 MB and 32 MB', () => {
    heapLimit(8192 * MiB)
    expect(heapDefaults('server')).toEqual({
      sandboxesMemory: 512 * MiB,
      writtenBytes: 512 * MiB,
      overridesBytes: 32 * MiB,
    })
    heapLimit(512 * MiB)
    expect(heapDefaults('server')).toEqual({
      sandboxesMemory: 128 * MiB,
      writtenBytes: 128 * MiB,
      overridesBytes: 8 * MiB,
    })
  })

  it('a bound given is kept as given', () => {
    heapLimit(512 * MiB)
    const { limits } = createSandbox({ sandboxesMemory: 300 * MiB }).options
    expect(limits.sandboxesMemory).toBe(300 * MiB)
  })
})
