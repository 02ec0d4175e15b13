/**
 * A gate for work that runs in child processes (tsc, npm, a recipe's commands): `atATime(2)`
 * gives a function that runs its `work` once fewer than two others are running, in the order
 * they asked. The machine has two cores.
 */
export function atATime(most: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: Array<() => void> = []
  return async (work) => {
    while (running >= most) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await work()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}
