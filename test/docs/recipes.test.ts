import type { ChildProcess } from 'node:child_process'
import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { atATime } from '../support/at-a-time.js'
import { chromiumPath } from '../support/browser.js'
import type { Command, Project } from './recipes.js'
import { docProjects, matchesExpected, repo } from './recipes.js'

/**
 * Issue 32: every recipe of the README and docs/ runs as written, in a fresh project per
 * `doc-project`, from the packed tarball, with the msw this stack runs (2 on the first, 3 on
 * the second). What the harness changes, and only that: the port (each project gets a free one
 * instead of 4010, so projects and a sandbox you left running do not collide), `shop-sandbox`
 * and `msw` in install commands (the tarball; this stack's msw), npm's cache flags, and, for
 * Playwright, Debian's Chromium instead of Playwright's download.
 */

const exec = promisify(execFile)
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const mswVersion = JSON.parse(
  readFileSync(join(repo, 'node_modules', 'msw', 'package.json'), 'utf8'),
).version as string
const mswMajor = Number(mswVersion.split('.')[0])
/** The first stack runs the msw of the repo's devDependencies; the second, msw 3. */
const firstStack =
  mswMajor ===
  Number(
    /\d+/.exec(
      JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).devDependencies.msw,
    )![0],
  )
const projects = docProjects()
let work = ''
let tarball = ''

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shop-sandbox-docs-'))
  // npm test has just built dist/; packing must not rebuild it under the other test files' feet.
  await exec(npm, ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: repo })
  tarball = join(
    work,
    (await readdir(work)).find((name) => name.endsWith('.tgz'))!,
  )
}, 120_000)

afterAll(async () => {
  if (work && !process.env.KEEP_DOCS) await rm(work, { recursive: true, force: true })
})

/** A free TCP port on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** An install command as this run makes it: the tarball, this stack's msw, npm's cache. */
function installCommand(text: string): string {
  if (!/^npm (?:install|i)\b/.test(text)) return text
  const words = text.split(/\s+/).map((word) => {
    if (word === 'shop-sandbox') return tarball
    if (/^msw(?:@\d+)?$/.test(word)) return `msw@${mswVersion}`
    return word
  })
  return [...words, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'].join(' ')
}

/** What the reader's own app is, where a page assumes one: made before the page's steps. */
async function makeApp(folder: string, app: string | undefined): Promise<void> {
  if (!app) return
  if (app !== 'vite') throw new Error(`no app preset named ${app}`)
  await exec(
    npm,
    [
      'install',
      '--save-dev',
      'vite',
      'react',
      'react-dom',
      '@vitejs/plugin-react',
      '@types/react',
      '@types/react-dom',
      'typescript',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: folder, timeout: 240_000 },
  )
  const entry = existsSync(join(folder, 'src', 'main.tsx')) ? 'main.tsx' : 'main.ts'
  await writeFile(
    join(folder, 'index.html'),
    `<!doctype html><html><body><div id="root"></div><div id="app"></div><script type="module" src="/src/${entry}"></script></body></html>\n`,
  )
  await writeFile(
    join(folder, 'vite.config.ts'),
    `import { defineConfig } from 'vite'\nimport react from '@vitejs/plugin-react'\nexport default defineConfig({ plugins: [react()] })\n`,
  )
  await writeFile(
    join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        jsx: 'react-jsx',
        strict: true,
        skipLibCheck: true,
        types: ['vite/client'],
      },
      include: ['src'],
    }),
  )
}

/** Playwright's config with Debian's Chromium in place of Playwright's own download. */
function withChromium(path: string, content: string): string {
  if (!path.startsWith('playwright.config')) return content
  const launch = `launchOptions: { executablePath: ${JSON.stringify(chromiumPath)}, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] }, `
  if (!content.includes('use: {'))
    throw new Error('playwright.config has no use: { … } to add the browser to')
  return content.replace('use: {', `use: { ${launch}`)
}

interface Running {
  child: ChildProcess
  output: () => string
}

/** Runs a command in bash, its output checked against the lines the page shows under it. */
async function run(command: Command, folder: string, env: NodeJS.ProcessEnv, where: string) {
  const text = installCommand(command.text)
  const result = await exec('bash', ['-c', text], {
    cwd: folder,
    env,
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
    throw new Error(
      `${where}: '${command.text}' failed (exit ${error.code}):\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
    )
  })
  if (command.expected.length === 0) return
  const actual = result.stdout.trimEnd()
  const expected = command.expected.join('\n')
  if (!matchesExpected(actual, expected))
    throw new Error(
      `${where}: '${command.text}' printed\n${actual}\nwhere the page shows\n${expected}`,
    )
}

/** Starts a command in the background; resolves once `url` answers. */
async function background(
  command: Command,
  url: string,
  folder: string,
  env: NodeJS.ProcessEnv,
  where: string,
): Promise<Running> {
  let output = ''
  const child = spawn('bash', ['-c', installCommand(command.text)], {
    cwd: folder,
    env,
    detached: true,
  })
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${where}: '${command.text}' exited (${child.exitCode}):\n${output}`)
    const answered = await fetch(url).then(
      () => true,
      () => false,
    )
    if (answered) return { child, output: () => output }
    if (Date.now() > deadline) throw new Error(`${where}: ${url} never answered:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Stops background commands as Ctrl-C would, then for good. */
async function stopAll(running: Running[]): Promise<void> {
  for (const { child } of running.splice(0)) {
    if (child.exitCode !== null) continue
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      process.kill(-child.pid!, 'SIGINT')
    } catch {
      continue
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // gone already
      }
    }, 10_000)
    await exited
    clearTimeout(timer)
  }
}

/** Runs one project's steps in a fresh folder. */
async function runProject(project: Project, folders: Map<string, string>): Promise<void> {
  const folder = join(work, project.name)
  folders.set(project.name, folder)
  await mkdir(folder, { recursive: true })
  await writeFile(
    join(folder, 'package.json'),
    JSON.stringify({ name: `docs-${project.name}`, private: true, ...project.packageFields }),
  )
  const port = await freePort()
  // Vite's dev server (5173 on the pages) gets a free port of its own, held to it.
  const vitePort = await freePort()
  const swap = (text: string) =>
    text
      .replace(/\b4010\b/g, String(port))
      .replace(/\b5173\b/g, String(vitePort))
      .replace(/^npx vite$/, `npx vite --port ${vitePort} --strictPort`)
  const env = {
    ...process.env,
    CI: '1',
    // `npx shop-sandbox` without --port listens on $PORT.
    PORT: String(port),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    npm_config_update_notifier: 'false',
  }
  // The files a page names before its commands exist when they run (an app's entry, a config).
  const entries = project.steps.filter((step) => step.kind === 'file')
  if (project.app) {
    for (const step of entries) {
      await mkdir(dirname(join(folder, step.path)), { recursive: true })
      await writeFile(join(folder, step.path), swap(step.content))
    }
    await makeApp(folder, project.app)
  }
  const running: Running[] = []
  try {
    for (const step of project.steps) {
      switch (step.kind) {
        case 'file': {
          const target = join(folder, step.path)
          await mkdir(dirname(target), { recursive: true })
          await writeFile(target, withChromium(step.path, swap(step.content)))
          break
        }
        case 'copy': {
          const from = folders.get(step.from)
          if (!from) throw new Error(`${step.where}: no project ${step.from} ran before this one`)
          await mkdir(dirname(join(folder, step.path)), { recursive: true })
          await cp(join(from, step.path), join(folder, step.path))
          break
        }
        case 'stop':
          await stopAll(running)
          break
        case 'commands': {
          const commands = step.commands.map((command) => ({
            text: swap(command.text),
            expected: command.expected.map(swap),
          }))
          if (step.background) {
            if (commands.length !== 1)
              throw new Error(`${step.where}: a background block holds one command`)
            running.push(
              await background(commands[0]!, swap(step.background), folder, env, step.where),
            )
          } else {
            for (const command of commands) await run(command, folder, env, step.where)
          }
        }
      }
    }
  } finally {
    await stopAll(running)
  }
}

describe('every recipe of the README and docs/ runs as written, from the packed tarball', () => {
  it('finds the recipes: every runnable block belongs to a project', () => {
    expect(projects.map((project) => project.name)).toEqual(
      expect.arrayContaining([
        'readme-server',
        'readme-vitest',
        'readme-browser',
        'vitest',
        'jest-esm',
        'jest-cjs',
        'playwright',
        'typed-client',
        'own-resources',
        'scenarios',
        'storybook',
        'agents',
        'typed-client-generators',
        'typed-client-orval8',
      ]),
    )
    expect(new Set(projects.map((project) => project.name)).size).toBe(projects.length)
    // One kept to the first stack runs no msw of its own: no file of it imports msw or the
    // sandbox, whose handlers would answer through the stack's msw.
    for (const project of projects.filter(({ firstStackOnly }) => firstStackOnly))
      for (const step of project.steps)
        if (step.kind === 'file')
          expect(step.content, `${project.name}: ${step.path}`).not.toMatch(
            /from ['"](?:msw|shop-sandbox)(?:\/[\w/]+)?['"]/,
          )
  })

  const folders = new Map<string, string>()
  // Projects run two at a time: each installs, builds or starts a server, mostly one process at
  // a time, and the machine has two cores (the consumer test runs beside this file, and the rest
  // of the suite before both: vitest.config.ts). One that copies files of an earlier one starts
  // once that one is done.
  const twoAtATime = atATime(2)
  const finished = new Map<string, Promise<void>>()
  // A project for other msw majors is not this stack's (the page says which it is for). One
  // where msw answers nothing (the CLI's server and curl) runs on the first stack only: the
  // second stack's CLI is run by the consumer test and test/e2e.
  const thisStack = (project: Project) =>
    (!project.msw || project.msw.includes(mswMajor)) && (!project.firstStackOnly || firstStack)
  for (const project of projects.filter(thisStack)) {
    const needsBrowser = project.browser === 'chromium' && !existsSync(chromiumPath)
    if (needsBrowser && process.env.SHOP_SANDBOX_REQUIRE_BROWSER)
      throw new Error(`Chromium not found at ${chromiumPath}; the docs' Playwright recipe needs it`)
    if (needsBrowser)
      console.warn(`\n⚠ ${project.name} SKIPPED: Chromium not found at ${chromiumPath}\n`)
    let settle!: (error?: unknown) => void
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error))
    })
    done.catch(() => {})
    finished.set(project.name, done)
    if (needsBrowser) settle()
    ;(needsBrowser ? it.skip : it.concurrent)(
      `${project.name} (${project.page}:${project.line})`,
      async () => {
        for (const step of project.steps)
          if (step.kind === 'copy')
            await finished.get(step.from)?.catch(() => {
              throw new Error(`${step.where}: copies from ${step.from}, which failed`)
            })
        try {
          await twoAtATime(() => runProject(project, folders))
          settle()
        } catch (error) {
          settle(error)
          throw error
        }
      },
      600_000,
    )
  }
})
