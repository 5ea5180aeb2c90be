// A copy of the project as a fresh clone holds it, for the tests of the build and of the npm scripts: they run
// there, never on the working tree's dist/, which may be older than its sources.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { childEnv, tempDir, type Teardown } from '../helper.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** What a clone holds that the build and the start read, without dist/; node_modules linked in, but for tsx (dev only). */
function projectCopy (t: Teardown): string {
  const dir = tempDir(t, 'pingward-clone-')
  for (const name of ['src', 'drizzle', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, name), join(dir, name), { recursive: true })
  }
  for (const folder of ['node_modules', 'node_modules/.bin']) {
    mkdirSync(join(dir, folder))
    for (const name of readdirSync(join(root, folder))) {
      if (name !== 'tsx' && name !== '.bin') symlinkSync(join(root, folder, name), join(dir, folder, name))
    }
  }
  return dir
}

/** A projectCopy in which `npm run build` has run. */
export function builtProjectCopy (t: Teardown): string {
  const dir = projectCopy(t)
  // env -u: tap's process tracking re-adds NODE_OPTIONS to spawns.
  const build = spawnSync('/usr/bin/env', ['-u', 'NODE_OPTIONS', 'npm', 'run', '-s', 'build'], { cwd: dir, env: childEnv({}), encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`npm run build: exit ${build.status}\n${build.stdout}${build.stderr}`)
  return dir
}
