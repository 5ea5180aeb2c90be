// `npm run build`'s last step, run as dist/db/pgdata-template.js: PGlite's initdb once, into the template a
// first start on an empty DATA_DIR copies (pglite.ts says why).
import { rmSync } from 'node:fs'
import { setTreeModes } from './data-dir-modes.ts'
import { openPglite, TEMPLATE } from './pglite.ts'

rmSync(TEMPLATE, { recursive: true, force: true })
await (await openPglite(TEMPLATE)).close()
// PGlite writes 0666; no secret is in it, so the service's user may read what only its builder may write.
setTreeModes(TEMPLATE, { directory: 0o755, file: 0o644 })
