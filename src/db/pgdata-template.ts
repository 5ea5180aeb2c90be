// `npm run build`'s last step, run as dist/db/pgdata-template.js: PGlite's initdb and the migrations once, into the
// template a first start on an empty DATA_DIR copies (pglite.ts says why), so that a first start migrates nothing.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTreeModes } from './data-dir-modes.ts'
import { openMigratedDatabase } from './migrate.ts'
import { TEMPLATE } from './pglite.ts'

rmSync(TEMPLATE, { recursive: true, force: true })
await (await openMigratedDatabase({ DATA_DIR: TEMPLATE })).close()
// The lock of the directory it was opened as: a copy starts without one.
rmSync(join(TEMPLATE, 'pingward.lock'), { force: true })
// PGlite writes 0666; no secret is in it, so the service's user may read what only its builder may write.
setTreeModes(TEMPLATE, { directory: 0o755, file: 0o644 })
