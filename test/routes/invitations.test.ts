// Invitations (api-contract section 12): made by an admin, shown once as accept_url and mailed through a real
// SMTP server; accepted once, by the invited email's user, within 7 days; revocable; listed while pending.
import t from 'tap'
import { createUser } from '../../src/repositories/users.ts'
import { buildTestApp, makeKey, makeMember, makeUser, request, until } from '../helper.ts'
import { smtpServer } from '../support/smtp-server.ts'

const NOT_FOUND = { error: 'Invitation not found' }
const PUBLIC_URL = 'https://pingward.example.com'

t.test('an invitation mailed, accepted once by its email\'s user, then no more', async (t) => {
  const smtp = await smtpServer(t)
  let now = new Date('2026-11-29T10:00:00.000Z')
  const { app } = await buildTestApp(t, { env: { SMTP_URL: smtp.url, SMTP_FROM: 'Pingward <pingward@example.com>', PUBLIC_URL }, clock: () => now })
  const owner = await makeUser(app)
  const admin = await makeMember(app, owner.orgId, 'admin')
  const invite = (by: typeof owner, payload: object) => request(app, by.auth, { method: 'POST', url: '/api/v1/organization/invitations', payload })

  const res = await invite(admin, { email: 'Grace@Example.com', role: 'responder' })
  t.equal(res.statusCode, 201)
  const made = res.json().data
  t.same(Object.keys(made), ['id', 'email', 'role', 'created_at', 'expires_at', 'accept_url'])
  t.match(made, { email: 'grace@example.com', role: 'responder', created_at: '2026-11-29T10:00:00.000Z', expires_at: '2026-12-06T10:00:00.000Z' })
  const token = new URL(made.accept_url).pathname.split('/').pop()!
  t.equal(made.accept_url, `${PUBLIC_URL}/invitations/${token}`)
  t.match(token, /^[\w-]{43}$/)

  const mail = await until(() => smtp.received[0])
  t.same(mail.envelope.to, ['grace@example.com'])
  t.equal(mail.mail.subject, `You are invited to ${owner.user.email} on Pingward`)
  t.match(mail.mail.text, `${admin.user.email} invites you to join ${owner.user.email} on Pingward as responder.`)
  t.match(mail.mail.text, made.accept_url)

  const listed = await request(app, admin.auth, { url: '/api/v1/organization/invitations' })
  t.same(listed.json().data, [{ id: made.id, email: 'grace@example.com', role: 'responder', created_at: made.created_at, expires_at: made.expires_at }], 'listed without its link')
  t.equal((await invite(admin, { email: 'x@example.com', role: 'owner' })).statusCode, 403, 'an admin invites no owner')
  t.equal((await invite(owner, { email: 'x@example.com', role: 'owner' })).statusCode, 201, 'an owner does')
  t.match((await invite(admin, { email: 'nope', role: 'viewer' })).json(), { error: 'body/email must be an email address' })

  const grace = await createUser(app.db, 'grace@example.com')
  const graceKey = await makeKey(app, grace.id)
  const stranger = await makeUser(app)
  const accept = (auth: Record<string, string>, value = token) => request(app, auth, { method: 'POST', url: '/api/v1/invitations/accept', payload: { token: value } })
  t.same((await accept(stranger.auth)).json(), NOT_FOUND, 'another email\'s key')
  t.same((await accept(graceKey.auth, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))).json(), NOT_FOUND, 'another token')
  const accepted = await accept(graceKey.auth)
  t.equal(accepted.statusCode, 200)
  t.same(accepted.json(), { data: { organization_id: owner.orgId, role: 'responder' } })
  t.same((await accept(graceKey.auth)).json(), NOT_FOUND, 'single use')
  const members = (await request(app, owner.auth, { url: '/api/v1/organization/members' })).json().data
  t.match(members.find((m: { email: string }) => m.email === 'grace@example.com'), { role: 'responder' })
  t.same((await request(app, admin.auth, { url: '/api/v1/organization/invitations' })).json().data.map((i: { email: string }) => i.email), ['x@example.com'],
    'an accepted invitation is no longer pending')

  // Revoked, and expired: both 404.
  const revoked = (await invite(admin, { email: 'grace@example.com', role: 'admin' })).json().data
  t.equal((await request(app, admin.auth, { method: 'DELETE', url: `/api/v1/organization/invitations/${revoked.id}` })).statusCode, 204)
  t.same((await request(app, admin.auth, { method: 'DELETE', url: `/api/v1/organization/invitations/${revoked.id}` })).json(), NOT_FOUND)
  t.same((await accept(graceKey.auth, new URL(revoked.accept_url).pathname.split('/').pop())).json(), NOT_FOUND, 'revoked')
  const late = (await invite(admin, { email: 'grace@example.com', role: 'admin' })).json().data
  now = new Date(now.getTime() + 7 * 86_400_000)
  t.same((await accept(graceKey.auth, new URL(late.accept_url).pathname.split('/').pop())).json(), NOT_FOUND, 'expired after 7 days')
  t.same((await request(app, admin.auth, { url: '/api/v1/organization/invitations' })).json().data, [], 'none pending')
})

t.test('without SMTP the link is only in the answer; an invitation of a member keeps their role', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const editor = await makeMember(app, owner.orgId, 'editor')
  const made = (await request(app, owner.auth, { method: 'POST', url: '/api/v1/organization/invitations', payload: { email: editor.user.email, role: 'viewer' } })).json().data
  t.match(made.accept_url, /^http:\/\/localhost:3000\/invitations\/[\w-]{43}$/)
  const token = made.accept_url.split('/').pop()
  const accepted = await request(app, editor.auth, { method: 'POST', url: '/api/v1/invitations/accept', payload: { token } })
  t.same(accepted.json(), { data: { organization_id: owner.orgId, role: 'editor' } }, 'the member keeps their role')
})
