// The operator's built-in locations (api-contract section 17): `locations list` shows the checker processes' locations,
// `locations remove` takes away one whose checkers are gone, never one that is online, never an organization's agent.
import t from 'tap'
import { runCommand } from '../../src/cli/commands.ts'
import { UsageError } from '../../src/cli/usage-error.ts'
import { upsertBuiltin } from '../../src/locations/repository.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { command, parseError } from './cli-helper.ts'

t.test('a silent built-in location is removed; an online one and an agent location are not', async (t) => {
  const now = new Date('2026-12-02T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const run = (line: string) => runCommand(app.db, command(line), now)
  const owner = await makeUser(app)
  await upsertBuiltin(app.db, 'default', { at: new Date(now.getTime() - 10_000), version: '1.0.0' })
  await upsertBuiltin(app.db, 'eu-west', { at: new Date(now.getTime() - 61_000), version: '0.9.0' })
  t.equal((await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'office', name: 'Office' } })).statusCode, 201)
  const monitor = await makeMonitor(app, owner.auth, { locations: ['default', 'eu-west'] })

  t.equal((await run('locations list')).stdout, 'code\tlast_seen_at\tversion\tonline\n' +
    'default\t2026-12-02T11:59:50.000Z\t1.0.0\tyes\n' +
    'eu-west\t2026-12-02T11:58:59.000Z\t0.9.0\tno\n', 'the built-in ones only, with what GET /locations says of them')

  await t.rejects(run('locations remove default'), {
    message: 'default is online: a checker process started with CHECKER_LOCATION=default still runs; stop it first',
  })
  await t.rejects(run('locations remove office'), { message: 'No built-in location office; see: npm run -s cli -- locations list' },
    'an organization\'s agent location is deleted over the API, not here')
  t.equal((await run('locations remove eu-west')).stderr,
    'Removed the built-in location eu-west; monitors that list it count it as silent until their locations change\n')
  await t.rejects(run('locations remove eu-west'), { message: /^No built-in location eu-west/ })

  const codes = (await request(app, owner.auth, { url: '/api/v1/locations' })).json().data.map((l: { code: string }) => l.code)
  t.same(codes, ['default', 'office'])
  t.same((await request(app, owner.auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data.locations, ['default', 'eu-west'],
    'a monitor keeps its locations')

  await upsertBuiltin(app.db, 'eu-west', { at: now, version: '1.0.0' })
  t.match((await run('locations list')).stdout, /\neu-west\t2026-12-02T12:00:00.000Z\t1.0.0\tyes\n/, 'a checker started again makes it again')
})

t.test('locations remove needs a code', async (t) => {
  for (const [line, message] of [
    ['locations remove', 'locations remove needs a CODE: 2-32 lowercase letters'],
    ['locations remove EU', 'locations remove needs a CODE: 2-32 lowercase letters'],
    ['locations remove e', 'locations remove needs a CODE: 2-32 lowercase letters'],
    ['locations remove eu-west extra', 'locations remove: unexpected argument extra'],
    ['locations list eu', 'locations list: unexpected argument eu'],
  ]) {
    const error = parseError(line)
    t.ok(error instanceof UsageError, `${line}: a usage error`)
    t.match((error as Error).message, message, line)
  }
})
