// An exclusive lock on the embedded database's directory: PGlite corrupts data if two processes open it.
//
// The lock is the kernel's, not a pid to check: an open file description lock (fcntl F_OFD_SETLK; LockFileEx
// on Windows) on `pingward.lock`, taken through fs-native-extensions, whose package ships the addon prebuilt
// (nothing compiles at install). The kernel drops it when its holder's file is closed, which happens however
// the process ends, kill -9 included, so a dead holder never blocks and a live one always does. The pid in the
// file only names the holder in the refusal; it is never compared with anything (as pid 1 in a container,
// every start has the crashed holder's pid, and a dead holder's pid may belong to another process by now).
//
// Rejected: a Unix socket in the directory (a dead holder's socket file refuses connections, but taking it
// over means unlinking it, and two starting processes can both see it dead and one unlink the other's live
// socket; Node has no atomic replace-if-dead); an abstract socket (Linux only, and scoped to a network
// namespace, so two containers sharing the volume would both get it); PGlite 0.5 (no lock of its own on a
// NodeFS directory); mtime-refreshed lock files (a stalled live holder looks dead, a dead one blocks until
// it looks stale).
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

export class DataDirLockedError extends Error {}

/** The pid its holder wrote in the lock file, when it reads as one. */
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
  // Loaded here, not at import: only the embedded database needs the addon (run-main.ts imports this
  // module for its error class in every process).
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
    // Emptied while still held, so that the file never names a process that has let go; closing the
    // file is what releases the lock.
    try { ftruncateSync(fd, 0) } finally { closeSync(fd) }
  }
}
