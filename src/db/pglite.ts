// Opens the embedded PostgreSQL (PGlite) with what it may take of the process's memory (bench/results.md,
// "Memory on a small box"). Loaded only for the embedded database (client.ts imports it when used).
//
// Where the memory went, and what holds it down:
// - Shared memory. PGlite runs PostgreSQL in a WebAssembly heap that never gives memory back, and allocates
//   and zeroes its shared memory in full at start: with initdb's shared_buffers=128MB an open database held
//   ~150 MB before its first query. The data lives in files (DATA_DIR), so the pages that do not fit in
//   16 MB of buffers come from the kernel's page cache, which the kernel can reclaim. Given on the command
//   line, not in postgresql.conf, so that directories made before apply them too.
// - Compiled code. V8 compiles the 9 MB pglite.wasm with Liftoff, then recompiles its hot functions with
//   TurboFan in the background: ~35 MB more, and CPU taken from requests while it runs.
// - initdb. On an empty directory PGlite runs initdb in a second PostgreSQL instance in the same process,
//   copies that instance's whole 128 MB heap, and moves the result over as a tar: 600-900 MB at once. The
//   build runs it once (scripts/build.js) and a first start copies that directory (dist/pgdata-template/).
import { copyFileSync, cpSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'

const PGLITE_SETTINGS = {
  // Pingward's hot pages (a few thousand monitors, the newest checks, the indexes' upper levels) fit.
  shared_buffers: '16MB',
  // CREATE INDEX in a migration (single-user PostgreSQL runs no autovacuum).
  maintenance_work_mem: '16MB',
} as const

/** PGlite's own start parameters (which it replaces when given any) with the settings above. */
const startParams = (): string[] =>
  [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])]

/** The directory initdb made at build time: beside the compiled modules only (src/ has none). */
const TEMPLATE = fileURLToPath(new URL('../pgdata-template', import.meta.url))

/**
 * An empty data directory gets a copy of the template, its PG_VERSION last: PGlite takes a directory
 * without PG_VERSION for a new one (and runs initdb), so a copy cut short is copied again next time.
 */
function seedFromTemplate (dataDir: string): void {
  if (existsSync(join(dataDir, 'PG_VERSION')) || !existsSync(join(TEMPLATE, 'PG_VERSION'))) return
  cpSync(TEMPLATE, dataDir, { recursive: true, filter: (source) => source !== join(TEMPLATE, 'PG_VERSION') })
  copyFileSync(join(TEMPLATE, 'PG_VERSION'), join(dataDir, 'PG_VERSION'))
}

/** A directory, or `memory://` (tests). The caller holds the directory's lock. */
export async function openPglite (dataDir: string): Promise<PGlite> {
  // Before PGlite compiles its module; it is the process's only big WebAssembly.
  setFlagsFromString('--liftoff-only')
  if (!dataDir.startsWith('memory://')) seedFromTemplate(dataDir)
  return await PGlite.create(dataDir, { startParams: startParams() })
}
