// `npm run build`: compiles src/ to JavaScript in dist/, which `npm start` runs with plain node.
//
// Each file is transpiled on its own (TypeScript's transpileModule with tsconfig.build.json's options,
// `.ts` imports rewritten to `.js`), as tsx did at run time: a whole-program `tsc` took longer than a start
// should, and types are `npm run typecheck`'s job (CI runs it). The files of src/ that are not TypeScript
// (the dashboard's assets) are copied beside their modules, so that paths made from import.meta.url hold
// in dist/ as in src/; drizzle/ stays where it is (dist/db/ is as deep as src/db/).
//
// It also runs PGlite's initdb once, into dist/pgdata-template/, which a first start on an empty DATA_DIR
// copies (src/db/pglite.ts says why: initdb in the server took 600-900 MB). Kept from build to build while
// the installed PGlite is the same version.
//
// dist/.build-stamp records a hash of what the output is made of; run.js compares it to decide whether to
// build. A build is made in .dist-next/ (as deep as dist/) and swapped in by two renames. It holds an OFD
// lock on .build.lock (as the embedded database's lock; fs-native-extensions) exclusively, and run.js holds
// it shared while it checks and loads dist/: several starts at once build once, and none loads modules
// from a dist/ being replaced.
import { createHash } from 'node:crypto'
import { closeSync, constants, copyFileSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const DIST = join(ROOT, 'dist')
const NEXT = join(ROOT, '.dist-next')
const OLD = join(ROOT, '.dist-old')
const SRC = join(ROOT, 'src')
const STAMP = '.build-stamp'
// Never deleted: an opener of the old file and one of a new file would both hold "the" lock.
const LOCK = join(ROOT, '.build.lock')
const TEMPLATE = 'pgdata-template'
const TEMPLATE_VERSION = 'pgdata-template.version'
const PGLITE_PACKAGE = 'node_modules/@electric-sql/pglite/package.json'
/** What the output is made of besides src/. */
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.js', PGLITE_PACKAGE]

const require = createRequire(import.meta.url)
const say = (line) => process.stderr.write(`pingward build: ${line}\n`)

/** Every file under `dir`, in a stable order. */
function filesUnder (dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort()
}

/**
 * A hash of the paths and contents of src/ and the build's settings. Contents, not times: a checkout, a
 * copy into an image or a touch changes times without changing the output. About 10 ms.
 */
export function sourceFingerprint () {
  const hash = createHash('sha256')
  for (const file of [...INPUTS.map((name) => join(ROOT, name)), ...filesUnder(SRC)]) {
    const content = readFileSync(file)
    hash.update(`${relative(ROOT, file)}\0${content.length}\0`).update(content)
  }
  return hash.digest('hex')
}

/** Whether dist/ holds a finished build of the sources as they are now. */
export function isBuilt (fingerprint = sourceFingerprint()) {
  try {
    return JSON.parse(readFileSync(join(DIST, STAMP), 'utf8')).fingerprint === fingerprint
  } catch {
    return false // no build yet
  }
}

/** Whether the TypeScript compiler is installed (it is a devDependency: absent after `npm ci --omit=dev`). */
export function canBuild () {
  try {
    require.resolve('typescript')
    return true
  } catch {
    return false
  }
}

/** Takes the build's lock, exclusive or shared; returns the function that releases it. */
export async function lockBuild (shared) {
  const fd = openSync(LOCK, constants.O_RDWR | constants.O_CREAT, 0o644)
  try {
    await require('fs-native-extensions').waitForLock(fd, 0, 0, { shared })
  } catch (err) {
    closeSync(fd)
    throw err
  }
  return () => closeSync(fd)
}

function compile (into) {
  const ts = require('typescript')
  const fail = (diagnostics) => {
    throw new Error(ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (name) => name, getCurrentDirectory: () => ROOT, getNewLine: () => '\n',
    }))
  }
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail([diagnostic]),
  })
  if (config.errors.length) fail(config.errors)
  const { rootDir } = config.options
  // ES modules, as tsc makes of them under package.json's "type": "module" (NodeNext), which a file
  // transpiled alone cannot look up.
  const compilerOptions = {
    ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, outDir: undefined, rootDir: undefined,
  }
  let count = 0
  for (const file of config.fileNames) {
    if (file.endsWith('.d.ts')) continue
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file, reportDiagnostics: true })
    if (diagnostics?.length) fail(diagnostics)
    const target = join(into, relative(rootDir, file)).replace(/\.ts$/, '.js')
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, outputText)
    count++
  }
  for (const file of filesUnder(SRC).filter((name) => !name.endsWith('.ts'))) {
    const target = join(into, relative(rootDir, file))
    mkdirSync(dirname(target), { recursive: true })
    copyFileSync(file, target)
  }
  return count
}

/** dist/'s template when it was made by the installed PGlite, else PGlite's initdb: into the build `into`. */
async function makeTemplate (into) {
  const version = JSON.parse(readFileSync(join(ROOT, PGLITE_PACKAGE), 'utf8')).version
  const versionFile = join(DIST, TEMPLATE_VERSION)
  const made = !(existsSync(join(DIST, TEMPLATE, 'PG_VERSION')) && existsSync(versionFile) && readFileSync(versionFile, 'utf8').trim() === version)
  if (!made) {
    cpSync(join(DIST, TEMPLATE), join(into, TEMPLATE), { recursive: true })
  } else {
    // Opened as the server opens it (the settings, the compiler flag), with the modules just built.
    const { openPglite } = await import(pathToFileURL(join(into, 'db', 'pglite.js')).href)
    await (await openPglite(join(into, TEMPLATE))).close()
  }
  // Written by PGlite with initdb's 0666: writable by nobody but the builder, readable by the user the server runs
  // as (docs/deploy.md's service builds as root); it holds no secret, and a data directory copied from it is tightened.
  const { setTreeModes } = await import(pathToFileURL(join(into, 'db', 'data-dir-modes.js')).href)
  setTreeModes(join(into, TEMPLATE), { directory: 0o755, file: 0o644 })
  writeFileSync(join(into, TEMPLATE_VERSION), version + '\n')
  return made
}

/** Builds dist/ unless it is up to date; returns whether it built. */
export async function build () {
  const unlock = await lockBuild(false)
  try {
    // Asked again under the lock: another process may have built while this one waited.
    const fingerprint = sourceFingerprint()
    if (isBuilt(fingerprint)) return false
    const started = Date.now()
    rmSync(NEXT, { recursive: true, force: true })
    mkdirSync(NEXT)
    const count = compile(NEXT)
    say(`compiled ${count} files of src/ to dist/ in ${Date.now() - started} ms`)
    const initdbStarted = Date.now()
    if (await makeTemplate(NEXT)) say(`made dist/${TEMPLATE}/ (PGlite's initdb) in ${Date.now() - initdbStarted} ms`)
    writeFileSync(join(NEXT, STAMP), JSON.stringify({ fingerprint, builtAt: new Date().toISOString() }) + '\n')
    rmSync(OLD, { recursive: true, force: true })
    if (existsSync(DIST)) renameSync(DIST, OLD)
    renameSync(NEXT, DIST)
    rmSync(OLD, { recursive: true, force: true })
    return true
  } finally {
    unlock()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!canBuild()) {
    say('TypeScript is not installed (it is a devDependency): run npm install, or build where it is installed')
    process.exit(1)
  }
  build().then((built) => { if (!built) say('dist/ is up to date') }, (err) => {
    say(err instanceof Error ? err.message : String(err))
    process.exit(1)
  })
}
