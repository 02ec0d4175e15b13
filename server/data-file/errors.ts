import { flag } from '../../sandbox/option-table.js'

/** A data file that could not be used or written; the file is left as it was. */
export class DataFileError extends Error {
  override readonly name = 'DataFileError'
}

/** `ENOSPC: no space left on device` from a Node error, without the path. */
export function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  const text = String(message ?? error).split('\n')[0]!
  const bare = text.replace(/^[A-Z]+: /, '')
  // `…, open '/the/file'`: what follows the first `, <syscall>` at the end or before a quote.
  const syscall = /, \w+(?: '|$)/.exec(bare)
  const detail = syscall ? bare.slice(0, syscall.index) : bare
  return code ? `${code}: ${detail}` : detail
}

/** Why `path` cannot be read, written or locked, in the user's words (with the flag to change). */
export function cannot(verb: string, path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EROFS') return `cannot ${verb} data file ${path}: the file system is read-only`
  if (code === 'EACCES' || code === 'EPERM')
    return `cannot ${verb} data file ${path}: permission denied; pick a ${flag('data')} path you may write`
  return `cannot ${verb} data file ${path}: ${reasonOf(error)}`
}
