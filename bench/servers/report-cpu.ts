/** Answers the bench's `cpu` message with the CPU time this server has used (user + system, µs). */
export function reportCpu(): void {
  process.on('message', (message) => {
    if (message !== 'cpu') return
    const { user, system } = process.cpuUsage()
    process.send?.({ cpuMicros: user + system })
  })
}
