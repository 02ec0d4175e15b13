/**
 * How both builds (scripts/build-esm.ts, scripts/build-cjs.ts) minify: whitespace and syntax,
 * names kept, and lines broken after about 400 characters (esbuild's `lineLimit` is a soft
 * limit: a long string stays whole). Node shows the line an uncaught error was thrown from, and
 * a minified chunk's one line printed ~47 KB of code under a mistake's message
 * (`createSandbox({ users: -1 })`); short lines cost ~6 kB of the packed tarball.
 */
export const minified = {
  minifyWhitespace: true,
  minifySyntax: true,
  lineLimit: 400,
} as const
