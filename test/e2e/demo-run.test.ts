import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const exec = promisify(execFile)
const repo = fileURLToPath(new URL('../../', import.meta.url))

it('npm run demo on a busy port says so in one line and exits 1', async () => {
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  const { port } = busy.address() as AddressInfo
  try {
    const failure = await exec(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('demo/run.ts', `file://${repo}`))],
      { cwd: repo, env: { ...process.env, PORT: String(port) } },
    ).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    )
    expect(failure?.code).toBe(1)
    expect(failure?.stderr.trim()).toBe(
      `shop-sandbox demo: port ${port} is in use; pick another with PORT=5174 npm run demo`,
    )
  } finally {
    busy.close()
  }
})
