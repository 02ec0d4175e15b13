import { defineConfig } from 'vitest/config'

/**
 * The two files that pack the tarball and install it into fresh projects (the docs' recipes,
 * the consumer projects). They spend their time in child processes (npm, tsc, Vite, Chromium),
 * one at a time each, so they run side by side, after the rest of the suite: never beside the
 * files that time the event loop or a request.
 */
const packaging = ['test/docs/recipes.test.ts', 'test/package/consumer.test.ts']

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: packaging },
      },
      {
        extends: true,
        test: {
          name: 'packaging',
          include: packaging,
          sequence: { groupOrder: 1 },
          maxWorkers: 2,
        },
      },
    ],
  },
})
