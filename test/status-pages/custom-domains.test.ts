// Custom domains (api-contract section 16): a page's domain serves nothing until the TXT record `_pingward.<domain>`
// says its `domain_txt_record`, seen by the API's check or the checker's sweep (asked of a real DNS server, driven by a
// clock); then its Host serves the page at `/` with its twins, and nothing else: never the dashboard or the API. A
// record that goes away unverifies the domain. The server's own host is never a custom domain.
import pino from 'pino'
import t from 'tap'
import { checkDomains } from '../../src/status-pages/domains.ts'
import { buildTestApp, makeTeam, request, until } from '../helper.ts'
import { DOMAIN, PUBLIC_URL, customDomainApp as setUp } from '../support/custom-domain-app.ts'

const DAY = 86_400_000

t.test('the API verifies a domain once its TXT record is there; then its Host serves the page and its twins, and nothing else', async (t) => {
  const { app, team, api, makePage, publish, onHost } = await setUp(t)
  const page = await makePage({ custom_domain: DOMAIN })
  const component = (await api('POST', `/status-pages/${page.id}/components`, { name: 'API', manual_status: 'operational' })).json().data
  const verify = () => api('POST', `/status-pages/${page.id}/verify-domain`)

  const unverified = await onHost(DOMAIN)
  t.same([unverified.statusCode, unverified.json()], [404, { error: 'Status page not found' }], 'an unverified domain serves no page')
  const none = await verify()
  t.same([none.statusCode, none.json()], [409, { error: `_pingward.${DOMAIN} has no TXT record: publish one that says "${page.domain_txt_record}"` }])
  publish(DOMAIN, ['v=spf1 -all'], ['pingward-verification=someone-elses'])
  const other = await verify()
  t.same([other.statusCode, other.json()], [409, {
    error: `The TXT records of _pingward.${DOMAIN} say "v=spf1 -all", "pingward-verification=someone-elses", not "${page.domain_txt_record}"`,
  }], 'the values found are named')

  // A record of several strings is read joined.
  publish(DOMAIN, ['v=spf1 -all'], ['pingward-verification=', page.domain_txt_record.slice('pingward-verification='.length)])
  const verified = await verify()
  t.equal(verified.statusCode, 200, verified.body)
  t.match(verified.json().data, { id: page.id, custom_domain: DOMAIN, domain_verified: true })
  t.equal((await verify()).statusCode, 200, 'again: still verified')
  const events = (await api('GET', `/audit-events?entity_id=${page.id}&action=status_page.domain_verified`)).json().data
  t.equal(events.length, 1, 'audited once, when it changed')
  t.same(events[0].changes, { domain_verified: [false, true] })
  t.equal(events[0].actor.id, team.keyId)

  const home = await onHost(DOMAIN)
  t.equal(home.statusCode, 200)
  t.match(home.headers['content-type'], /^text\/html/)
  t.match(home.body, '<title>Acme status')
  t.match(home.body, `https://${DOMAIN}/history.atom`, 'its links are the domain\'s')
  t.equal((await onHost(DOMAIN, '/', { 'if-none-match': String(home.headers.etag) })).statusCode, 304, 'a current copy: 304')
  t.equal((await onHost(`${DOMAIN.toUpperCase()}:8443`)).statusCode, 200, 'a port and the case do not matter')
  const summary = await onHost(DOMAIN, '/summary.json')
  t.equal(summary.json().page.url, `https://${DOMAIN}`)
  const twins: Array<[string, RegExp]> = [
    ['/api/v2/summary.json', /^application\/json/], ['/api/v2/status.json', /^application\/json/], ['/history.atom', /^application\/atom\+xml/],
    ['/maintenance.ics', /^text\/calendar/], ['/badge.svg', /^image\/svg\+xml/], ['/badge.json', /^application\/json/],
    [`/components/${component.id}/badge.svg`, /^image\/svg\+xml/], [`/components/${component.id}/badge.json`, /^application\/json/],
  ]
  for (const [path, type] of twins) {
    const res = await onHost(DOMAIN, path)
    t.equal(res.statusCode, 200, path)
    t.match(res.headers['content-type'], type, `${path}: its type`)
    t.match(res.headers['cache-control'], /^public, max-age=30/, `${path}: cached as the page's twins are`)
  }
  t.same((await onHost(DOMAIN, '/components/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/badge.svg')).json(), { error: 'Component not found' })

  // Nothing else answers on the domain: not the dashboard, the API, the probes, nor another page.
  for (const [method, url] of [['GET', '/sign-in'], ['GET', '/api/v1/status-pages'], ['DELETE', `/api/v1/status-pages/${page.id}`], ['GET', '/healthz'],
    ['GET', `/status/${page.slug}`], ['GET', '/docs'], ['PUT', '/'], ['GET', '/status-domains/check?domain=status.acme.test']] as const) {
    const res = await app.inject({ method, url, headers: { host: DOMAIN, ...team.auth } })
    t.same([res.statusCode, res.json()], [404, { error: 'Not found' }], `${method} ${url} on the domain`)
  }
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/monitors', headers: { host: DOMAIN, 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 404, 'whatever the body')

  // The server's own names are as they were.
  t.equal((await app.inject({ url: `/status/${page.slug}` })).statusCode, 200, 'the page\'s own /status/{slug}')
  t.equal((await app.inject({ url: `/status/${page.slug}`, headers: { host: 'pingward.example.com' } })).statusCode, 200)
  const dashboard = await app.inject({ url: '/', headers: { host: 'pingward.example.com' } })
  t.not(dashboard.headers['content-type'], 'application/json; charset=utf-8', 'the dashboard at / on the server\'s host')
  t.equal((await request(app, team.auth, { url: '/api/v1/status-pages', headers: { host: 'localhost:3000' } })).statusCode, 200, 'the API on it')

  // The proxy's question before a certificate.
  const check = (domain: string) => app.inject({ url: `/status-domains/check?domain=${encodeURIComponent(domain)}` })
  const yes = await check(DOMAIN)
  t.same([yes.statusCode, yes.body], [200, ''], 'a verified domain of a published page: 200, no body')
  t.equal((await check(`${DOMAIN.toUpperCase()}.`)).statusCode, 200)
  t.same([(await check('elsewhere.test')).statusCode, (await check('elsewhere.test')).json()], [404, { error: 'Not a status page\'s domain' }])
  t.equal((await check('pingward.example.com')).statusCode, 404)
  t.equal((await app.inject({ url: '/status-domains/check' })).statusCode, 400)
})

t.test('a password page on its domain: the form posts to /, and its cookie opens the twins', async (t) => {
  const { makePage, publish, api, onHost, app } = await setUp(t)
  const page = await makePage({ custom_domain: DOMAIN, access: 'password', password: 'correct horse battery' })
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)
  const form = await onHost(DOMAIN)
  t.equal(form.statusCode, 200)
  t.match(form.body, /<form method="post" action="\/"/)
  t.equal((await onHost(DOMAIN, '/summary.json')).statusCode, 401)
  const post = (password: string) => app.inject({ method: 'POST', url: '/', headers: { host: DOMAIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `password=${encodeURIComponent(password)}` })
  t.equal((await post('wrong password!')).statusCode, 401)
  const right = await post('correct horse battery')
  t.equal(right.statusCode, 303)
  t.equal(right.headers.location, '/')
  const cookie = String(right.headers['set-cookie'])
  t.match(cookie, /; Path=\/; /, 'the cookie is the domain\'s root\'s')
  t.equal((await onHost(DOMAIN, '/summary.json', { cookie: cookie.split(';')[0] })).statusCode, 200)
})

t.test('another organization\'s domain, an unverified one and an unpublished page\'s serve nothing', async (t) => {
  const { app, makePage, publish, api, onHost } = await setUp(t)
  const ours = await makePage({ custom_domain: DOMAIN })
  publish(DOMAIN, [ours.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${ours.id}/verify-domain`)).statusCode, 200)

  const rival = await makeTeam(app)
  const taken = await api('POST', '/status-pages', { slug: 'rival', title: 'Rival', custom_domain: DOMAIN }, rival.auth)
  t.same([taken.statusCode, taken.json()], [409, { error: `custom_domain "${DOMAIN}" is another status page's` }])
  // Their page names a domain whose record says our page's value: not theirs.
  const theirs = await makePage({ custom_domain: 'status.rival.test' }, rival.auth)
  publish('status.rival.test', [ours.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${theirs.id}/verify-domain`, undefined, rival.auth)).statusCode, 409)
  t.equal((await api('POST', `/status-pages/${theirs.id}/verify-domain`)).statusCode, 404, 'another organization\'s page is a 404')
  const hidden = await makePage({ custom_domain: 'hidden.acme.test', published: false })
  publish('hidden.acme.test', [hidden.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${hidden.id}/verify-domain`)).statusCode, 200, 'an unpublished page\'s domain is verified')
  for (const host of ['status.rival.test', 'hidden.acme.test']) {
    for (const url of ['/', '/summary.json', '/badge.svg', '/api/v1/status-pages', '/sign-in']) {
      const res = await onHost(host, url)
      t.equal(res.statusCode, 404, `${host}${url}`)
      t.type(res.json().error, 'string', `${host}${url}: an {error}`)
    }
    t.equal((await app.inject({ url: `/status-domains/check?domain=${host}` })).statusCode, 404, `${host}: no certificate`)
  }
  t.equal((await onHost(DOMAIN)).statusCode, 200, 'ours serves')
})

t.test('the sweep verifies with its clock, looks again a day later, and unverifies a domain whose record is gone', async (t) => {
  const { app, makePage, publish, api, onHost, dns } = await setUp(t)
  const lines: string[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(line) } })
  const sweep = (at: Date) => checkDomains(app.db, { now: at, servers: [dns.server], log })
  const page = await makePage({ custom_domain: DOMAIN })
  const now = new Date()
  t.same(await sweep(now), { verified: 0, unverified: 0 }, 'no record yet')
  publish(DOMAIN, [page.domain_txt_record])
  t.same(await sweep(now), { verified: 1, unverified: 0 })
  t.match(lines.join(''), /"domain":"status\.acme\.test".*"msg":"status page custom domain verified"/)
  await until(async () => (await onHost(DOMAIN)).statusCode === 200)
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, { domain_verified: true })
  const [event] = (await api('GET', `/audit-events?entity_id=${page.id}&action=status_page.domain_verified`)).json().data
  t.match(event.actor, { type: 'system', label: 'custom domain check' })

  const asked = dns.questions.length
  t.same(await sweep(new Date(now.getTime() + DAY - 60_000)), { verified: 0, unverified: 0 }, 'a verified domain is not due within the day')
  t.equal(dns.questions.length, asked, 'and not asked about')
  publish(DOMAIN)
  t.same(await sweep(new Date(now.getTime() + DAY + 60_000)), { verified: 0, unverified: 1 }, 'a day later its record is gone')
  t.match(lines.join(''), /"domain":"status\.acme\.test".*"msg":"status page custom domain unverified: its TXT record is gone"/)
  await until(async () => (await onHost(DOMAIN)).statusCode === 404)
  t.same((await onHost(DOMAIN, '/summary.json')).json(), { error: 'Status page not found' })
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, { domain_verified: false })
  t.equal((await app.inject({ url: `/status-domains/check?domain=${DOMAIN}` })).statusCode, 404)

  // A new domain is unverified at once, whatever the old one's record said.
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)
  const moved = await api('PATCH', `/status-pages/${page.id}`, { custom_domain: 'status2.acme.test' })
  t.match(moved.json().data, { custom_domain: 'status2.acme.test', domain_verified: false })
  await until(async () => (await onHost(DOMAIN, '/sign-in')).statusCode !== 404)
  t.equal((await onHost('status2.acme.test', '/sign-in')).statusCode, 404, 'the new one is the page\'s, unverified')
})

t.test('X-Forwarded-Host names the domain only from a proxy TRUST_PROXY names', async (t) => {
  const { app, makePage, publish, api, database } = await setUp(t)
  const page = await makePage({ custom_domain: DOMAIN })
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)
  const forged = await app.inject({ url: '/', headers: { host: 'pingward.example.com', 'x-forwarded-host': DOMAIN } })
  t.same([forged.statusCode, forged.json()], [404, { error: 'Status page not found' }], 'not believed without TRUST_PROXY: no page, and no dashboard')

  const { app: behindProxy } = await buildTestApp(t, { env: { PUBLIC_URL, TRUST_PROXY: '127.0.0.1' }, database })
  const proxied = await behindProxy.inject({ url: '/summary.json', headers: { host: '127.0.0.1:3000', 'x-forwarded-host': DOMAIN } })
  t.equal(proxied.statusCode, 200, 'believed from the proxy')
  t.equal(proxied.json().page.url, `https://${DOMAIN}`)
  const direct = await behindProxy.inject({ url: '/', headers: { host: DOMAIN, 'x-forwarded-host': 'pingward.example.com' } })
  t.equal(direct.statusCode, 404, 'the proxy naming the server\'s host: never the page on another name')
})

t.test('the server\'s own host is never a custom domain', async (t) => {
  const { api, makePage } = await setUp(t)
  const refused = await api('POST', '/status-pages', { slug: 'own-host', title: 'Own', custom_domain: 'pingward.example.com' })
  t.same([refused.statusCode, refused.json()], [400, { error: 'body/custom_domain must not be this server\'s own host name (pingward.example.com)' }])
  const page = await makePage({})
  const changed = await api('PATCH', `/status-pages/${page.id}`, { custom_domain: 'pingward.example.com' })
  t.same([changed.statusCode, changed.json()], [400, { error: 'body/custom_domain must not be this server\'s own host name (pingward.example.com)' }])
  for (const host of ['localhost', '127.0.0.1', '::1']) {
    const res = await api('PATCH', `/status-pages/${page.id}`, { custom_domain: host })
    t.equal(res.statusCode, 400, host)
    t.match(res.json().error, /^body\/custom_domain /, `${host}: the field is named`)
  }
  const none = await api('POST', `/status-pages/${page.id}/verify-domain`)
  t.same([none.statusCode, none.json()], [409, { error: 'The page has no custom_domain to verify' }])
})
