// An exclusive lock on the embedded database's directory: PGlite corrupts data if two processes open it. It is
// the kernel's OFD lock, dropped however its holder ends; the pid in the file only names the holder, never compared.
// docs/architecture.md ("Processes and signals") says why the alternatives fail.
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

export class DataDirLockedError extends Error {}

function holderOf (lockPath: string): string | undefined {
  try {
    const text = readFileSync(lockPath, 'utf8').trim()
    return /^[1-9]\d*$/.test(text) ? text : undefined
  } catch {
    return undefined // Windows refuses to read a range another process has locked
  }
}

/** Takes the lock or throws DataDirLockedError naming the process that holds it; returns the release function. */
export function lockDataDir (dataDir: string): () => void {
  // Loaded here, not at import: every process imports this module for its error class, few need the addon.
  const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as typeof import('fs-native-extensions')
  // Its user's alone, as every file in it (data-dir-modes.ts).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const lockPath = join(dataDir, 'pingward.lock')
  // Neither truncated here nor deleted at release: a process that opened the file before a deletion
  // could lock the old file while the next opener locks a new one, and both would hold "the" lock.
  const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT, 0o600)
  let locked = false
  try {
    locked = tryLock(fd)
  } finally {
    if (!locked) closeSync(fd)
  }
  if (!locked) {
    // A holder that has not written its pid yet leaves the file empty, or naming the one before it.
    const holder = holderOf(lockPath)
    throw new DataDirLockedError(
      `The embedded database in ${dataDir} is in use by another Pingward process${holder ? ` (pid ${holder})` : ''}. ` +
      'Stop that process first, or run Pingward on PostgreSQL (DATABASE_URL) to use several processes at once.'
    )
  }
  ftruncateSync(fd, 0)
  writeSync(fd, String(process.pid), 0)
  let released = false
  return () => {
    if (released) return
    released = true
    // Emptied while still held, so that the file never names a process that has let go.
    try { ftruncateSync(fd, 0) } finally { closeSync(fd) }
  }
}
