import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The layers hold by a lint rule `npm test` runs (issue 31): the engine's folders import nothing
 * of the shop, nor the entry points and the CLI that compose the engine with it.
 */
describe('the engine knows no shop', () => {
  const eslint = new ESLint({ cwd: root })
  const lint = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath: `${root}/${filePath}` }))[0]!.messages.map(
      (message) => message.ruleId,
    )

  it.each([
    ['http/auth.ts', "import { shopApi } from '../shop/index.js'\nexport const api = shopApi\n"],
    ['openapi/document.ts', "import { users } from '../shop/users.js'\nexport const u = users\n"],
    ['sandbox/options.ts', "import { runCli } from '../bin/cli.js'\nexport const r = runCli\n"],
    [
      'server/server.ts',
      "import { setupSandbox } from '../node/index.js'\nexport const s = setupSandbox\n",
    ],
  ])('%s may not import %s', async (file, code) => {
    expect(await lint(file, code)).toContain('no-restricted-imports')
  })

  it('the composition roots may', async () => {
    expect(
      await lint(
        'node/create-server.ts',
        "import { withShop } from '../shop/defaults.js'\nexport const w = withShop\n",
      ),
    ).not.toContain('no-restricted-imports')
  })
})
