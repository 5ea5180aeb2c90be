// The embedded database on disk: data survives a restart, and the directory lock keeps a second opener out.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { openDatabase } from '../../src/db/client.ts'
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createUser, findUserByEmail } from '../../src/repositories/users.ts'
import { tempDir } from '../helper.ts'

const DEAD_PID = 999_999

function errorOf (fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

t.test('on disk: data survives close and reopen, a second opener is refused, a stale lock is taken over', async (t) => {
  const dir = tempDir(t, 'pingward-db-')
  const lockFile = join(dir, 'pingward.lock')

  const first = await openDatabase({ DATA_DIR: dir })
  t.equal(first.kind, 'pglite')
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'the lock file holds our pid')
  await migrate(first)
  const user = await createUser(first.db, 'persist@example.com')

  // A second opener, while the first is open, is refused before it touches the files.
  const refused = await openDatabase({ DATA_DIR: dir }).then(() => undefined, (err: unknown) => err)
  t.ok(refused instanceof DataDirLockedError, 'DataDirLockedError')
  t.match((refused as Error).message, `in use by another Pingward process (pid ${process.pid})`)
  t.match((refused as Error).message, dir)
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'the refused opener left the lock alone')
  await first.ping()

  await first.close()
  await first.close() // a second close is harmless
  t.notOk(existsSync(lockFile), 'close releases the lock')

  // As if a process had been killed while it held the database: its lock names a pid that is gone.
  t.notOk(isAlive(DEAD_PID), `pid ${DEAD_PID} is not running (precondition)`)
  writeFileSync(lockFile, String(DEAD_PID))
  const second = await openDatabase({ DATA_DIR: dir })
  t.teardown(() => second.close())
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'the stale lock was taken over')
  await migrate(second) // already applied: a no-op
  const found = await findUserByEmail(second.db, 'persist@example.com')
  t.equal(found?.id, user.id, 'the user written before the restart is there')
  t.same(found?.createdAt, user.createdAt)
})

t.test('lockDataDir: live holders refuse, stale and unreadable locks are taken over, release is idempotent', async (t) => {
  const dir = join(tempDir(t, 'pingward-db-'), 'nested', 'data')
  const lockFile = join(dir, 'pingward.lock')

  const release = lockDataDir(dir)
  t.ok(existsSync(lockFile), 'creates the directory and the lock')
  t.ok(errorOf(() => lockDataDir(dir)) instanceof DataDirLockedError, 'a second lock in the same process is refused')
  release()
  release()
  t.notOk(existsSync(lockFile))

  // The parent of this process is alive too: a lock held by another live process refuses.
  writeFileSync(lockFile, String(process.ppid))
  t.throws(() => lockDataDir(dir), { message: new RegExp(`\\(pid ${process.ppid}\\)`) })
  t.equal(readFileSync(lockFile, 'utf8'), String(process.ppid), 'and leaves it in place')

  // A lock file left empty or garbled by a crash while it was being written is stale.
  for (const content of ['', 'garbage', '-1', String(DEAD_PID)]) {
    writeFileSync(lockFile, content)
    const again = lockDataDir(dir)
    t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), `taken over from ${JSON.stringify(content)}`)
    again()
  }
})
