import type * as V8 from 'node:v8'

/**
 * V8's heap limit and the bytes it uses now, where they can be read: Node's `node:v8` (loaded
 * without an import, so this runs in a browser too), else Chromium's `performance.memory`;
 * undefined elsewhere.
 */
export function heapStatistics(): { limit: number; used: number } | undefined {
  const v8 = globalThis.process?.getBuiltinModule?.('node:v8') as typeof V8 | undefined
  if (v8) {
    const { heap_size_limit: limit, used_heap_size: used } = v8.getHeapStatistics()
    return { limit, used }
  }
  const memory = (
    globalThis.performance as
      { memory?: { jsHeapSizeLimit: number; usedJSHeapSize: number } } | undefined
  )?.memory
  return memory ? { limit: memory.jsHeapSizeLimit, used: memory.usedJSHeapSize } : undefined
}
