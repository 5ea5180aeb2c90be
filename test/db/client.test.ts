// The embedded database on disk: data survives a restart, and a second opener is refused (the lock itself: data-dir-lock.test.ts).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { openDatabase } from '../../src/db/client.ts'
import { DataDirLockedError } from '../../src/db/data-dir-lock.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createUser, findUserByEmail } from '../../src/repositories/users.ts'
import { tempDir } from '../helper.ts'

t.test('on disk: data survives close and reopen, and a second opener is refused while the first is open', async (t) => {
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
  t.equal(readFileSync(lockFile, 'utf8'), '', 'close empties the file: it names no holder')

  // Reopened, as after a restart: close released the lock, and the data is there.
  const second = await openDatabase({ DATA_DIR: dir })
  t.teardown(() => second.close())
  t.equal(readFileSync(lockFile, 'utf8'), String(process.pid), 'the lock was taken again')
  await migrate(second) // already applied: a no-op
  const found = await findUserByEmail(second.db, 'persist@example.com')
  t.equal(found?.id, user.id, 'the user written before the restart is there')
  t.same(found?.createdAt, user.createdAt)
})
