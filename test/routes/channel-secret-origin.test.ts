// A channel's secret does not follow its URL to another origin: an ntfy token is for its server, so a new
// server_url needs the token again (a masked or left-out one is refused, naming it). A webhook's signing
// secret is Pingward's own and stays; a chat service's webhook_url is itself the secret. Both databases.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { notificationChannels } from '../../src/db/schema.ts'
import { buildTestApp, makeUser, request } from '../helper.ts'

const TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2'
const REFUSED = { error: 'body/config/token must be given again for the server_url\'s new origin' }

t.test('channel secrets and a change of origin', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const post = (payload: object) => request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload })
  const patch = (id: string, payload: object) => request(app, auth, { method: 'PATCH', url: `/api/v1/notification-channels/${id}`, payload })
  const stored = async (id: string) => (await app.db.select().from(notificationChannels).where(eq(notificationChannels.id, id)))[0]

  await t.test('ntfy: a token stays with its server', async (t) => {
    const created = (await post({ name: 'n', type: 'ntfy', config: { topic: 'alerts', server_url: 'https://ntfy.example.com', token: TOKEN } })).json().data
    const { id } = created

    t.equal((await patch(id, { config: { server_url: 'https://ntfy.example.com/' } })).statusCode, 200, 'the same origin: kept')
    t.equal((await stored(id)).config.token, TOKEN)

    const cases: Array<[string, Record<string, unknown>]> = [
      ['another host, token left out', { server_url: 'https://ntfy.evil.example' }],
      ['another port', { server_url: 'https://ntfy.example.com:8443' }],
      ['another scheme', { server_url: 'http://ntfy.example.com' }],
      ['the masked token sent back', { ...created.config, server_url: 'https://ntfy.evil.example' }],
      ['the operator\'s server instead (server_url removed)', { server_url: null }],
    ]
    for (const [what, config] of cases) {
      const res = await patch(id, { config })
      t.equal(res.statusCode, 400, what)
      t.same(res.json(), REFUSED, what)
    }
    t.same((await stored(id)).config, { topic: 'alerts', server_url: 'https://ntfy.example.com/', token: TOKEN }, 'nothing changed')

    const given = await patch(id, { config: { server_url: 'https://ntfy.other.example', token: 'tk_new_token_1234' } })
    t.equal(given.statusCode, 200)
    t.same((await stored(id)).config, { topic: 'alerts', server_url: 'https://ntfy.other.example', token: 'tk_new_token_1234' })
    t.equal((await patch(id, { config: { server_url: 'https://ntfy.third.example', token: null } })).statusCode, 200, 'the token removed: nothing to give')

    const { id: fromDefault } = (await post({ name: 'd', type: 'ntfy', config: { topic: 'alerts', token: TOKEN } })).json().data
    const res = await patch(fromDefault, { config: { server_url: 'https://ntfy.example.com' } })
    t.same(res.json(), REFUSED, 'from the operator\'s server to one of the user\'s')
    const { id: noToken } = (await post({ name: 'p', type: 'ntfy', config: { topic: 'alerts' } })).json().data
    t.equal((await patch(noToken, { config: { server_url: 'https://ntfy.example.com' } })).statusCode, 200, 'no token: any server')
  })

  await t.test('a webhook keeps its signing secret (Pingward\'s own) and a chat webhook_url is replaced whole', async (t) => {
    const { id } = (await post({ name: 'w', type: 'webhook', config: { url: 'https://hooks.example.com/a' } })).json().data
    const secret = (await stored(id)).secret
    t.equal((await patch(id, { config: { url: 'https://other.example.net/b' } })).statusCode, 200)
    t.equal((await stored(id)).secret, secret, 'the receiver checks signatures with it; the receiver\'s own credential is not in it')
    const slack = (await post({ name: 's', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/T000/B000/slack1234' } })).json().data
    t.equal((await patch(slack.id, { config: { webhook_url: 'https://hooks.slack.com/services/T000/B000/other5678' } })).statusCode, 200)
    t.equal((await stored(slack.id)).config.webhook_url, 'https://hooks.slack.com/services/T000/B000/other5678')
  })
})
