// `npm start`, `npm run worker`, `npm run cli`: `node scripts/run.js server|worker|cli [args]` runs that entry
// point's compiled module (dist/) in this very process, after building dist/ when it is missing or older
// than the sources.
//
// In this process, not a child: the process npm starts (and a signal reaches) is Pingward itself, with no
// launcher holding memory or having to pass signals on; and the build runs in a child process, so the
// compiler's memory is gone before the server starts. Without TypeScript (`npm ci --omit=dev` with sources
// newer than dist/) it runs the sources through tsx instead, as every start did before there was a build.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DIST, ROOT, canBuild, isBuilt, lockBuild } from './build.js'

const ENTRIES = ['server', 'worker', 'cli']
const name = process.argv[2]
if (!ENTRIES.includes(name)) {
  process.stderr.write(`usage: node scripts/run.js ${ENTRIES.join('|')} [arguments]\n`)
  process.exit(2)
}

/** Without TypeScript, or when the sources changed again since the build just made: tsx, as before there was a build. */
async function fromSources () {
  if (!canBuild()) process.stderr.write('pingward: dist/ is missing or older than src/ and TypeScript is not installed to build it: running src/ through tsx\n')
  const { register } = await import('tsx/esm/api')
  register()
  return join(ROOT, 'src', `${name}.ts`)
}

// Shared while dist/ is checked and its modules loaded: a build (exclusive) swaps dist/ only before or after.
let unlock = await lockBuild(true)
if (!isBuilt() && canBuild()) {
  unlock()
  // Its output on stderr: a command's stdout (a key the CLI prints) stays the command's alone.
  const { status } = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.js')], { cwd: ROOT, stdio: ['ignore', 2, 2] })
  if (status !== 0) process.exit(status ?? 1)
  unlock = await lockBuild(true)
}
const entry = isBuilt() ? join(DIST, `${name}.js`) : await fromSources()
// The entry reads its arguments as if it had been started as `node dist/<name>.js [args]`.
process.argv.splice(1, 2, entry)
try {
  await import(pathToFileURL(entry).href)
} finally {
  unlock()
}
