// The embedded database's directory lock: a live holder always refuses, a dead one (kill -9) never blocks, whatever pid the lock file names.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock.ts'
import { outputWaiter, spawnPingward, tempDir, usingPostgres } from '../helper.ts'

const embeddedOnly = usingPostgres && 'PGlite\'s data directory alone: run once, on the embedded database'

const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/

function errorOf (fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

/** The API server on the embedded database in `dataDir` (children get no DATABASE_URL), on a free port. */
function startServer (t: { teardown: (fn: () => unknown) => void }, dataDir: string) {
  const child = spawnPingward('src/server.ts', [], {
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info',
  })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<void>((resolve) => child.on('close', () => { wake(); resolve() }))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  return { child, waitFor, exited }
}

t.test('after kill -9 the server restarts, whatever pid the lock file was left holding', { skip: embeddedOnly }, async (t) => {
  const dir = tempDir(t, 'pingward-lock-')
  const lockFile = join(dir, 'pingward.lock')
  // A live process that has nothing to do with Pingward, as when a crashed holder's pid has been reused.
  const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' })
  t.teardown(() => { unrelated.kill('SIGKILL') })

  let server = startServer(t, dir)
  await server.waitFor(LISTENING)
  const leftBehind: Array<[string, () => string]> = [
    ['the dead holder\'s own pid', () => readFileSync(lockFile, 'utf8')],
    ['the pid of a live unrelated process', () => String(unrelated.pid)],
  ]
  for (const [what, pid] of leftBehind) {
    server.child.kill('SIGKILL')
    await server.exited
    writeFileSync(lockFile, pid())
    server = startServer(t, dir)
    const [, url] = await server.waitFor(LISTENING)
    t.pass(`restarted with ${what} in the lock`)
    t.equal((await fetch(`${url}/readyz`)).status, 200, 'and it answers')
  }

  // The restarted server holds the directory: a second opener is refused and told who holds it.
  const refused = errorOf(() => lockDataDir(dir))
  t.ok(refused instanceof DataDirLockedError, 'a live holder refuses')
  t.match((refused as Error).message, `in use by another Pingward process (pid ${server.child.pid})`)
  server.child.kill('SIGKILL')
  await server.exited
  const release = lockDataDir(dir)
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'the killed holder\'s lock was released by its death')
  release()
})

t.test('lockDataDir: one holder at a time, in this process too, and the pid in the file decides nothing', { skip: embeddedOnly }, async (t) => {
  const dir = join(tempDir(t, 'pingward-lock-'), 'nested', 'data')
  const lockFile = join(dir, 'pingward.lock')

  const release = lockDataDir(dir)
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'creates the directory, locks it and names its holder')
  const refused = errorOf(() => lockDataDir(dir))
  t.ok(refused instanceof DataDirLockedError, 'a second lock in the same process is refused')
  t.match((refused as Error).message, `The embedded database in ${dir} is in use by another Pingward process (pid ${process.pid})`)
  t.match((refused as Error).message, 'DATABASE_URL')
  // A holder that has not yet written its pid (or whose file was emptied) still refuses, naming no pid.
  writeFileSync(lockFile, '')
  t.match(String((errorOf(() => lockDataDir(dir)) as Error | undefined)?.message), /in use by another Pingward process\. /)
  release()
  release()

  // Our own pid (pid 1 in a container restarts as pid 1), a live process's, and a crash's leftovers:
  // none of them is a holder.
  for (const content of [String(process.pid), String(process.ppid), '1', '', 'garbage', '-1', '999999']) {
    writeFileSync(lockFile, content)
    const again = lockDataDir(dir)
    t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), `taken with ${JSON.stringify(content)} in the file`)
    again()
  }
})
