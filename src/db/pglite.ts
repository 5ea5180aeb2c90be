// Opens PGlite within a small memory budget: its WebAssembly heap never shrinks and takes its shared buffers in
// full at start, so they are small; the build runs initdb once (pgdata-template.ts) and a first start copies it.
import { copyFileSync, cpSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'

const PGLITE_SETTINGS = {
  // Pingward's hot pages (a few thousand monitors, the newest checks, the indexes' upper levels) fit.
  shared_buffers: '8MB',
  // CREATE INDEX in a migration (single-user PostgreSQL runs no autovacuum).
  maintenance_work_mem: '16MB',
} as const

/** PGlite's start parameters (replaced when any are given) with the settings above, so old directories get them. */
const startParams = (): string[] =>
  [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])]

/** The directory initdb made at build time: beside the compiled modules only (src/ has none). */
export const TEMPLATE = fileURLToPath(new URL('../pgdata-template', import.meta.url))

// PG_VERSION is copied last: PGlite runs initdb in a directory without it, so a copy cut short is made again.
function seedFromTemplate (dataDir: string): void {
  if (existsSync(join(dataDir, 'PG_VERSION')) || !existsSync(join(TEMPLATE, 'PG_VERSION'))) return
  cpSync(TEMPLATE, dataDir, { recursive: true, filter: (source) => source !== join(TEMPLATE, 'PG_VERSION') })
  copyFileSync(join(TEMPLATE, 'PG_VERSION'), join(dataDir, 'PG_VERSION'))
}

/**
 * A directory, or `memory://` (tests). The caller holds the directory's lock. `loadDataDir`, a data directory's
 * tarball (PGlite's dumpDataDir), replaces initdb: the tests start each database from one migrated once.
 */
export async function openPglite (dataDir: string, loadDataDir?: Blob): Promise<PGlite> {
  // TurboFan's background recompiling of PGlite costs memory and CPU; set before PGlite compiles its module.
  // Node 24 ignores it at run time and takes it only on its command line (docs/operations.md#memory-and-start).
  setFlagsFromString('--liftoff-only')
  if (!dataDir.startsWith('memory://') && !loadDataDir) seedFromTemplate(dataDir)
  return await PGlite.create(dataDir, { startParams: startParams(), loadDataDir })
}
