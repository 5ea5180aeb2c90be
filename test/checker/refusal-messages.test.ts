// With private targets refused, a refusal says that the target is private and never what it resolved to:
// the real checker records http, tcp and dns checks of names that a real local DNS server points into
// private space, and no recorded error_message names an address or name of that space.
import t from 'tap'
import { Checker } from '../../src/checker/scheduler.ts'
import { createProber } from '../../src/checker/probe.ts'
import { cachingLookup } from '../../src/net/caching-lookup.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { dnsServer } from '../support/dns-server.ts'

// Every value of private space the zone gives; none may appear in a recorded message.
const SECRETS = ['10.0.0.5', 'fd00::5', '127.0.0.1', 'db.corp', 'mx.internal', 'ns1', 'db1.example.test', '10.0.0.9', 'secret-token=42']

const ZONE = {
  'intranet.test': { A: ['10.0.0.5'], AAAA: ['fd00::5'], TXT: [['secret-token=42']] },
  'loop.test': { A: ['127.0.0.1'] },
  'alias.test': { CNAME: 'db.corp' },
  'alias2.test': { CNAME: 'db1.example.test' },
  'db1.example.test': { A: ['10.0.0.9'] },
  'mail.test': { MX: [{ priority: 10, exchange: 'mx.internal' }] },
  'zone.test': { NS: ['ns1'] },
}

t.test('no private address or name of the answers is in a recorded check\'s message', async (t) => {
  const { server } = await dnsServer(t, ZONE)
  const [host, port] = server.split(':')
  const lookup = cachingLookup({ servers: [`${host}:${port}`], hostsFile: null, fallback: async () => [] })
  const { app } = await buildTestApp(t)
  const prober = createProber({ allowPrivateTargets: false, lookup, dnsServers: [server] })
  const checker = new Checker({ db: app.db, clock: () => new Date(), log: app.log, prober, concurrency: 20, confirmDelayMs: 30_000 })
  t.teardown(() => checker.stop())
  const { auth } = await makeUser(app)
  const dns = (url: string, type: string, expected: string[] | null = null) =>
    ({ monitor_type: 'dns', url, dns_record_type: type, dns_expected: expected })
  const bodies: Record<string, Record<string, unknown>> = {
    http: { url: 'http://intranet.test:8080/' },
    httpLoop: { url: 'http://loop.test/' },
    tcp: { monitor_type: 'tcp', url: 'tcp://intranet.test:5432' },
    a: dns('dns://intranet.test', 'A', ['10.9.9.9']),
    aaaa: dns('dns://intranet.test', 'AAAA'),
    cname: dns('dns://alias.test', 'CNAME', ['elsewhere.example.com']),
    cnameResolved: dns('dns://alias2.test', 'CNAME'),
    mx: dns('dns://mail.test', 'MX', ['mx.example.com']),
    ns: dns('dns://zone.test', 'NS'),
    txt: dns('dns://intranet.test', 'TXT', ['v=spf1 -all']),
  }
  const ids: Record<string, string> = {}
  for (const [name, body] of Object.entries(bodies)) ids[name] = (await makeMonitor(app, auth, { ...body, failure_threshold: 1, timeout_seconds: 5 })).id
  t.equal(await checker.runOnce(), Object.keys(bodies).length)
  for (const [name, id] of Object.entries(ids)) {
    const check = (await request(app, auth, { url: `/api/v1/monitors/${id}/checks` })).json().data[0]
    t.equal(check.is_up, false, name)
    const leaked = SECRETS.filter((secret) => String(check.error_message).includes(secret))
    t.same(leaked, [], `${name}: ${check.error_message}`)
  }
})
