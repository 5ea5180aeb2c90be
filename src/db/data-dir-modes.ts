// The embedded database's files are its user's alone: its WAL holds channel secrets in clear. The umask cannot
// do it (PGlite chmods new files to PostgreSQL's mode less 022), so the tree is tightened before and after start.
import { chmodSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const OWNER_ONLY = { directory: 0o700, file: 0o600 } as const

export const TIGHTENED_MESSAGE = 'DATA_DIR was open to other users: its directories are now 0700 and its files 0600'

/** What tightening changed: how many directories and files, and the modes they had. */
export interface Tightened { dataDir: string, directories: number, files: number, modes: string[] }

/** @public (the build sets the template's modes) Sets `root` and every directory under it to `modes.directory`, the rest to `modes.file`; returns what it changed. */
export function setTreeModes (root: string, modes: { directory: number, file: number }): Omit<Tightened, 'dataDir'> {
  const changed = { directories: 0, files: 0, modes: new Set<string>() }
  // Windows keeps no such modes (every file reads 0666): there is nothing to set.
  if (process.platform === 'win32') return { ...changed, modes: [] }
  for (const path of [root, ...readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => join(root, name))]) {
    let stat
    try {
      stat = lstatSync(path)
    } catch {
      continue // gone since the listing
    }
    // A link is followed by chmod: what it points at is not the database's to change.
    if (stat.isSymbolicLink()) continue
    const mode = stat.mode & 0o7777
    const wanted = stat.isDirectory() ? modes.directory : modes.file
    if (mode === wanted) continue
    chmodSync(path, wanted)
    changed.modes.add(mode.toString(8).padStart(4, '0'))
    if (stat.isDirectory()) changed.directories++
    else changed.files++
  }
  return { ...changed, modes: [...changed.modes].sort() }
}

/** Makes `dataDir` its user's alone; what was open to others, or undefined when nothing was. */
export function tightenDataDir (dataDir: string): Tightened | undefined {
  const changed = setTreeModes(dataDir, OWNER_ONLY)
  return changed.directories + changed.files > 0 ? { dataDir, ...changed } : undefined
}
