// Status pages on their custom domains behind a real Caddy with on-demand TLS, configured by
// docs/deploy/Caddyfile.custom-domains with Caddy's own CA instead of an ACME one: a verified domain gets a certificate
// on its first visit and serves its page over HTTPS; an unverified or unknown name gets no certificate at all.
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import t from 'tap'
import { buildTestApp, makeTeam, request } from '../helper.ts'
import { dnsServer, type ZoneEntry } from '../support/dns-server.ts'
import { CADDY, skipWithout, startCaddyForCustomDomains } from './proxies.ts'

interface Visit { status: number, body: string, subjectAltName: string, issuer: string }

/** GET `path` of 127.0.0.1:`port` as a browser at https://`name` asks it (SNI and Host), trusting `ca` only, or anything without it. */
function visit (port: number, name: string, path: string, ca?: string): Promise<Visit> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, servername: name, headers: { host: name }, ...(ca ? { ca } : { rejectUnauthorized: false }) }, (res) => {
      const certificate = (res.socket as TLSSocket).getPeerCertificate()
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('error', reject)
        .on('end', () => resolve({ status: res.statusCode!, body, subjectAltName: certificate.subjectaltname ?? '', issuer: String(certificate.issuer?.CN ?? '') }))
    })
    req.on('error', reject).end()
  })
}

t.test('behind Caddy with on_demand_tls: a verified domain gets its certificate and its page, no other name a certificate', { skip: skipWithout(CADDY, 'caddy') }, async (t) => {
  const zone: Record<string, ZoneEntry> = {}
  const dns = await dnsServer(t, zone)
  const { app } = await buildTestApp(t, { env: { TRUST_PROXY: '127.0.0.1', DNS_SERVERS: dns.server } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const team = await makeTeam(app)
  const page = async (slug: string, domain: string) =>
    (await request(app, team.auth, { method: 'POST', url: '/api/v1/status-pages', payload: { slug, title: 'Acme status', published: true, custom_domain: domain } })).json().data
  const verified = await page('acme', 'status.acme.test')
  await page('acme-waiting', 'waiting.acme.test')
  zone['_pingward.status.acme.test'] = { TXT: [[verified.domain_txt_record]] }
  t.equal((await request(app, team.auth, { method: 'POST', url: `/api/v1/status-pages/${verified.id}/verify-domain` })).statusCode, 200)

  const proxy = await startCaddyForCustomDomains(t, (app.server.address() as AddressInfo).port)
  const first = await visit(proxy.port, 'status.acme.test', '/')
  t.equal(first.status, 200)
  t.match(first.body, '<title>Acme status')
  t.match(first.subjectAltName, 'DNS:status.acme.test', 'a certificate for the domain')
  t.match(first.issuer, /Caddy Local Authority/, 'from Caddy\'s own CA')
  const summary = await visit(proxy.port, 'status.acme.test', '/summary.json', proxy.caRoot())
  t.equal(summary.status, 200, 'the certificate verifies against Caddy\'s root, for the domain\'s name')
  t.equal(JSON.parse(summary.body).page.url, 'https://status.acme.test')
  t.equal((await visit(proxy.port, 'status.acme.test', '/api/v1/status-pages')).status, 404, 'the API is not on the domain')

  for (const name of ['waiting.acme.test', 'unknown.acme.test']) {
    await t.rejects(visit(proxy.port, name, '/'), { code: 'EPROTO', message: /alert internal error/ }, `${name}: no certificate, the handshake fails`)
  }
  t.match(proxy.output(), /"certificate obtained successfully","identifier":"status\.acme\.test"/, 'Caddy got it on demand')
  t.notMatch(proxy.output(), /"identifier":"(waiting|unknown)\.acme\.test"/, 'and none for the others')
  t.equal((await visit(proxy.port, 'localhost', '/healthz')).status, 200, 'the dashboard\'s site as before')
})
