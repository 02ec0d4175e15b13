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
  it.each([
    [
      'under a 512 MB heap: a quarter for the sandboxes and for writes, a sixty-fourth for overrides',
      512,
      [128, 128, 8],
    ],
    ['under a large heap: at most 256 MB, 256 MB and 16 MB', 8192, [256, 256, 16]],
  ] as const)('in process, %s', (_, heap, [sandboxes, written, overrides]) => {
    heapLimit(heap * MiB)
    const { limits } = createSandbox().options
    expect(limits.sandboxesMemory).toBe(sandboxes * MiB)
    expect(limits.writtenBytes).toBe(written * MiB)
    expect(limits.overrides.bytes).toBe(overrides * MiB)
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
