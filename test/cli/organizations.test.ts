// The operator's organization commands (api-contract section 12): orgs list|create, members add|role|remove|list,
// and keys made in an organization, as the CLI parses and runs them, checked through the API.
import t from 'tap'
import { runCommand } from '../../src/cli/commands.ts'
import { UsageError } from '../../src/cli/usage-error.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { command, parseError } from './cli-helper.ts'

t.test('an organization made, its members and a key in it', async (t) => {
  const { app } = await buildTestApp(t)
  const run = (line: string) => runCommand(app.db, command(line))
  const ada = await makeUser(app)
  const bob = await makeUser(app)

  const made = await run(`orgs create acme --owner ${ada.user.email} --name Acme`)
  t.match(made.stdout, /^[0-9a-f-]{36}\n$/)
  t.equal(made.stderr, `Created organization acme with ${ada.user.email} as its owner\n`)
  await t.rejects(run(`orgs create acme --owner ${bob.user.email}`), { message: 'The slug acme is taken' })
  t.match((await run('orgs list')).stdout, /^id\tslug\tname\tmembers\tcreated_at\n[\s\S]*\tacme\tAcme\t1\t/m)

  await t.rejects(run(`keys create ${bob.user.email} --org acme`), { message: /is no member of acme; add them with: npm run -s cli -- members add/ })
  t.equal((await run(`members add ${bob.user.email} --org acme --role viewer`)).stderr, `Added ${bob.user.email} to acme as viewer\n`)
  await t.rejects(run(`members add ${bob.user.email} --org acme --role editor`), { message: /is a member of acme already/ })
  const key = (await run(`keys create ${bob.user.email} --org acme`)).stdout.trim()
  const auth = { authorization: `Bearer ${key}` }
  const org = (await request(app, auth, { url: '/api/v1/organization' })).json().data
  t.match(org, { slug: 'acme', name: 'Acme', role: 'viewer' }, 'the key is in acme, and acts as its maker\'s role there')
  t.equal((await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com' } })).statusCode, 403)

  t.equal((await run(`members role ${bob.user.email} --org acme --role editor`)).stderr, `${bob.user.email} is editor in acme\n`)
  const monitor = await makeMonitor(app, auth, { name: 'acme shop' })
  t.same((await request(app, auth, { url: '/api/v1/monitors' })).json().data.map((m: { id: string }) => m.id), [monitor.id], 'acme\'s monitors')
  t.same((await request(app, bob.auth, { url: '/api/v1/monitors' })).json().data, [], 'not in bob\'s personal organization')
  t.same((await run('members list --org acme')).stdout.split('\n').slice(1, -1).map((line) => line.split('\t').slice(1, 3)),
    [[ada.user.email, 'owner'], [bob.user.email, 'editor']])

  await t.rejects(run(`users delete ${ada.user.email} --yes`), { message: `${ada.user.email} is the last owner of acme: make another member an owner first (members role)` })
  await t.rejects(run(`members remove ${ada.user.email} --org acme`), { message: 'An organization keeps at least one owner: make another member an owner first' })
  await t.rejects(run(`members role ${ada.user.email} --org acme --role admin`), { message: /at least one owner/ })
  t.equal((await run(`members remove ${bob.user.email} --org acme`)).stderr, `Removed ${bob.user.email} from acme, with the keys they made there\n`)
  t.equal((await request(app, auth, { url: '/api/v1/monitors' })).statusCode, 401, 'the removed member\'s key is refused')
  await t.rejects(run('members list --org nope'), { message: 'No organization with the slug nope; see: npm run -s cli -- orgs list' })

  const adaKey = (await run(`keys create ${ada.user.email} --org acme`)).stdout.trim()
  await t.rejects(run(`orgs delete ${(await request(app, ada.auth, { url: '/api/v1/organization' })).json().data.slug}`), { message: /^A personal organization goes with its user/ })
  t.equal((await run('orgs delete acme')).stderr, 'Deleted organization acme with its monitors, channels, keys, members and audit log\n')
  t.equal((await request(app, { authorization: `Bearer ${adaKey}` }, { url: '/api/v1/monitors' })).statusCode, 401, 'its keys go with it')
  t.notMatch((await run('orgs list')).stdout, '\tacme\t')
  t.equal((await request(app, ada.auth, { url: '/api/v1/organization' })).statusCode, 200, 'ada keeps her personal organization')
})

t.test('usage errors name the flag', async (t) => {
  for (const [line, message] of [
    ['orgs create Acme --owner a@example.com', 'orgs create needs a SLUG: 1-63 lowercase letters'],
    ['orgs create acme', 'orgs create needs --owner EMAIL'],
    ['members add a@example.com --org acme', 'members add needs --role, one of viewer, responder, editor, admin, owner'],
    ['members add a@example.com --role viewer', 'members add needs --org SLUG'],
    ['keys create a@example.com --org Acme_1', 'keys create needs --org SLUG'],
  ]) {
    const error = parseError(line)
    t.ok(error instanceof UsageError, `${line}: a usage error`)
    t.match((error as Error).message, message, line)
  }
})
