// An exclusive lock on the embedded database's directory: PGlite corrupts data if two processes open it.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export class DataDirLockedError extends Error {}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the lock or throws DataDirLockedError naming the process that holds it; returns the release function. */
export function lockDataDir (dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true })
  const lockPath = join(dataDir, 'pingward.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(lockPath, { force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = Number(readFileSync(lockPath, 'utf8'))
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by another Pingward process (pid ${holder}). ` +
          'Stop that process first, or run Pingward on PostgreSQL (DATABASE_URL) to use several processes at once.'
        )
      }
      // The holder died without cleaning up: the lock is stale, take it over.
      rmSync(lockPath, { force: true })
    }
  }
  throw new DataDirLockedError(`Could not lock ${dataDir}`)
}
