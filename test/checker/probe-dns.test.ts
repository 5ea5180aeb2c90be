// Tests of the dns probe against a real local DNS server (dns2): each record type, expected values, the
// resolver's failures, the address policy on answers and names, timeouts and abort.
import t from 'tap'
import { createProber, type ProbeOptions } from '../../src/checker/probe.ts'
import type { DnsProbeTarget } from '../../src/checker/probe-dns.ts'
import type { DnsRecordType } from '../../src/domain/vocabulary.ts'
import type { Teardown } from '../helper.ts'
import { dnsServer } from '../support/dns-server.ts'
import { freePort } from '../support/target-server.ts'
import { testProber } from '../support/prober.ts'

const ZONE = {
  'example.test': {
    A: ['93.184.215.14', '93.184.215.15'],
    AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    MX: [{ priority: 20, exchange: 'mx2.example.test' }, { priority: 10, exchange: 'mx1.example.test' }],
    TXT: [['v=spf1 ', 'include:_spf.example.net ~all'], ['google-site-verification=abc']],
    NS: ['ns1.example.net', 'ns2.example.net'],
  },
  'www.example.test': { CNAME: 'edge.example.net' },
  'internal.test': { A: ['10.0.0.5'], AAAA: ['fd00::5'] },
  'mixed.test': { A: ['93.184.215.14', '127.0.0.1'] },
  'loopback.test': { A: ['127.0.0.1'] },
  'broken.test': { servfail: true as const },
  'silent.test': { silent: true as const },
  'xn--bcher-kva.test': { A: ['93.184.215.14'] },
}

const dns = (url: string, recordType: DnsRecordType = 'A', extra: Partial<DnsProbeTarget> = {}): DnsProbeTarget =>
  ({ type: 'dns', url, recordType, timeoutSeconds: 5, ...extra })

/** A prober whose resolver is a fresh local server of ZONE. */
async function setup (tt: Teardown, options: Partial<ProbeOptions> = {}) {
  const { server, questions } = await dnsServer(tt, ZONE)
  return { p: testProber(tt, { dnsServers: [server], ...options }), questions, server }
}

t.test('each record type: up when the resolver answers with records, the expected values all among them', async (t) => {
  const { p, questions } = await setup(t)
  const up = { isUp: true, degraded: false, statusCode: null, errorMessage: null }
  t.match(await p.probe(dns('dns://example.test')), up)
  t.match(await p.probe(dns('dns://example.test', 'A', { expected: ['93.184.215.15'] })), up)
  t.match(await p.probe(dns('dns://example.test', 'AAAA', { expected: ['2606:2800:21F:CB07:6820:80DA:AF6B:8B2C'] })), up, 'addresses compared as addresses')
  t.match(await p.probe(dns('dns://www.example.test', 'CNAME', { expected: ['Edge.Example.NET.'] })), up, 'names without case or trailing dot')
  t.match(await p.probe(dns('dns://example.test', 'MX', { expected: ['mx1.example.test', 'mx2.example.test.'] })), up, 'MX: the exchange names')
  t.match(await p.probe(dns('dns://example.test', 'TXT', { expected: ['v=spf1 include:_spf.example.net ~all'] })), up, 'TXT: a record\'s strings joined')
  t.match(await p.probe(dns('dns://example.test', 'NS', { expected: ['ns2.example.net'] })), up)
  t.match(await p.probe(dns('dns://example.test', 'A', { expected: [] })), up, 'an empty expectation: any answer')
  t.same(questions, ['A example.test', 'A example.test', 'AAAA example.test', 'CNAME www.example.test', 'MX example.test', 'TXT example.test', 'NS example.test', 'A example.test'])
})

t.test('the name as an http URL reads it: case, trailing dot, punycode', async (t) => {
  const { p, questions } = await setup(t)
  t.match(await p.probe(dns('dns://Example.TEST.')), { isUp: true })
  t.match(await p.probe(dns('dns://bücher.test')), { isUp: true })
  t.same(questions, ['A example.test', 'A xn--bcher-kva.test'])
})

t.test('down: what failed, named in one line', async (t) => {
  const { p } = await setup(t)
  const down = async (target: DnsProbeTarget) => {
    const result = await p.probe(target)
    t.match(result, { isUp: false, degraded: false, statusCode: null })
    t.ok(Number.isInteger(result.responseTimeMs) && result.responseTimeMs >= 0)
    return result.errorMessage
  }
  t.equal(await down(dns('dns://missing.test')), 'dns A missing.test: NXDOMAIN')
  t.equal(await down(dns('dns://www.example.test', 'MX')), 'dns MX www.example.test: no MX records')
  t.equal(await down(dns('dns://example.test', 'CNAME')), 'dns CNAME example.test: no CNAME records')
  t.equal(await down(dns('dns://broken.test')), 'dns A broken.test: SERVFAIL')
  t.equal(await down(dns('dns://example.test', 'A', { expected: ['93.184.215.99', '93.184.215.14'] })),
    'dns A example.test: expected 93.184.215.99 not in answer 93.184.215.14, 93.184.215.15')
  t.equal(await down(dns('dns://example.test', 'MX', { expected: ['mx3.example.test'] })),
    'dns MX example.test: expected mx3.example.test not in answer mx1.example.test, mx2.example.test', 'MX by priority')
  t.equal(await down(dns('dns://example.test', 'TXT', { expected: ['v=spf1 -all'] })),
    'dns TXT example.test: expected "v=spf1 -all" not in answer "v=spf1 include:_spf.example.net ~all", "google-site-verification=abc"')
})

t.test('the address policy on A and AAAA answers: a private one fails the check, without naming it, unless allowed', async (t) => {
  const { p: strict } = await setup(t, { allowPrivateTargets: false })
  const hint = 'the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true'
  t.match(await strict.probe(dns('dns://internal.test', 'A', { expected: ['10.9.9.9'] })),
    { isUp: false, statusCode: null, errorMessage: `dns A internal.test: target refused: the answer holds a private address; ${hint}` },
    'before the expectation, whose message would list the answer')
  t.match(await strict.probe(dns('dns://internal.test', 'AAAA')), { errorMessage: `dns AAAA internal.test: target refused: the answer holds a private address; ${hint}` })
  t.match(await strict.probe(dns('dns://mixed.test')), { errorMessage: `dns A mixed.test: target refused: the answer holds a private address; ${hint}` }, 'every address')
  t.match(await strict.probe(dns('dns://example.test', 'AAAA')), { isUp: true }, 'public answers pass')
  t.match(await strict.probe(dns('dns://www.example.test', 'CNAME')), { isUp: true }, 'a public name (here without addresses) passes')

  const { p: allowed } = await setup(t)
  t.match(await allowed.probe(dns('dns://internal.test', 'A', { expected: ['10.0.0.5'] })), { isUp: true, errorMessage: null })
  const { p: only } = await setup(t, { allowPrivateTargets: false, isAllowedAddress: (ip) => ip === '127.0.0.1' })
  t.match(await only.probe(dns('dns://loopback.test')), { isUp: true }, 'isAllowedAddress decides')
  t.match(await only.probe(dns('dns://example.test')), { isUp: false, errorMessage: /^dns A example\.test: target refused: the answer holds a private address; / })
})

t.test('with private targets refused, a CNAME, MX or NS answer that points into private space fails the check, naming nothing', async (t) => {
  const { server, questions } = await dnsServer(t, {
    ...ZONE,
    'corp-alias.test': { CNAME: 'db.corp' },
    'inside-alias.test': { CNAME: 'db1.example.test' },
    'db1.example.test': { A: ['93.184.215.20'], AAAA: ['fd00::9'] },
    'public-alias.test': { CNAME: 'edge.example.test' },
    'edge.example.test': { A: ['93.184.215.30'] },
    'lost-alias.test': { CNAME: 'broken.test' },
    'mail.test': { MX: [{ priority: 10, exchange: 'mx.example.test' }, { priority: 20, exchange: 'mx.lan' }] },
    'zone.test': { NS: ['ns1'] },
    'spf.test': { TXT: [['v=spf1 ip4:10.0.0.0/8 -all']] },
  })
  const strict = testProber(t, { allowPrivateTargets: false, dnsServers: [server] })
  const refused = (type: string, name: string) =>
    `dns ${type} ${name}: target refused: the answer names a private host; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true`
  t.match(await strict.probe(dns('dns://corp-alias.test', 'CNAME', { expected: ['x.example.com'] })), { isUp: false, errorMessage: refused('CNAME', 'corp-alias.test') }, 'a private-looking name')
  t.match(await strict.probe(dns('dns://inside-alias.test', 'CNAME')), { isUp: false, errorMessage: refused('CNAME', 'inside-alias.test') }, 'a name with a private address')
  t.match(await strict.probe(dns('dns://mail.test', 'MX', { expected: ['mx.example.test'] })), { isUp: false, errorMessage: refused('MX', 'mail.test') }, 'any of the names')
  t.match(await strict.probe(dns('dns://zone.test', 'NS')), { isUp: false, errorMessage: refused('NS', 'zone.test') }, 'a single label')
  t.match(await strict.probe(dns('dns://lost-alias.test', 'CNAME')),
    { isUp: false, errorMessage: 'dns CNAME lost-alias.test: the answer\'s names could not be checked against the address policy (SERVFAIL)' })
  questions.length = 0
  t.match(await strict.probe(dns('dns://public-alias.test', 'CNAME', { expected: ['other.example.test'] })),
    { isUp: false, errorMessage: 'dns CNAME public-alias.test: expected other.example.test not in answer edge.example.test' }, 'public names are quoted')
  t.same(questions, ['CNAME public-alias.test', 'A edge.example.test', 'AAAA edge.example.test'], 'the name\'s addresses asked of the same resolver')
  t.match(await strict.probe(dns('dns://spf.test', 'TXT', { expected: ['v=spf1 -all'] })),
    { isUp: false, errorMessage: 'dns TXT spf.test: expected "v=spf1 -all" not in the answer (1 TXT record, shown only when private targets are allowed)' }, 'TXT values are not quoted')
  t.match(await strict.probe(dns('dns://spf.test', 'TXT', { expected: ['v=spf1 ip4:10.0.0.0/8 -all'] })), { isUp: true })

  const allowed = testProber(t, { dnsServers: [server] })
  t.match(await allowed.probe(dns('dns://corp-alias.test', 'CNAME', { expected: ['x.example.com'] })),
    { errorMessage: 'dns CNAME corp-alias.test: expected x.example.com not in answer db.corp' }, 'allowed: quoted, not judged')
  t.match(await allowed.probe(dns('dns://spf.test', 'TXT', { expected: ['v=spf1 -all'] })),
    { errorMessage: 'dns TXT spf.test: expected "v=spf1 -all" not in answer "v=spf1 ip4:10.0.0.0/8 -all"' })
})

t.test('the policy on names: never an IP address; localhost-like names only when private targets are allowed', async (t) => {
  const { p: strict, questions } = await setup(t, { allowPrivateTargets: false })
  const { p: allowed } = await setup(t)
  for (const p of [strict, allowed]) {
    t.match(await p.probe(dns('dns://127.0.0.1')), { isUp: false, errorMessage: 'dns A 127.0.0.1: an IP address is not a name to ask the resolver about' })
    t.match(await p.probe(dns('dns://127.1')), { errorMessage: 'dns A 127.0.0.1: an IP address is not a name to ask the resolver about' })
    t.match(await p.probe(dns('dns://[::1]', 'AAAA')), { errorMessage: 'dns AAAA [::1]: an IP address is not a name to ask the resolver about' })
  }
  for (const name of ['localhost', 'db.localhost', 'printer.local', 'db.internal', 'metadata']) {
    t.match(await strict.probe(dns(`dns://${name}`)),
      { isUp: false, errorMessage: `dns A ${name}: target refused: ${name} is not a public address; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true` })
  }
  t.same(questions, [], 'nothing was asked')
  t.match(await allowed.probe(dns('dns://db.internal')), { errorMessage: 'dns A db.internal: NXDOMAIN' }, 'asked when allowed')
})

t.test('targets that are not dns://name fail without a question', async (t) => {
  const { p, questions } = await setup(t)
  for (const [url, message] of [
    ['dns://example.test:53', 'invalid dns target "dns://example.test:53": expected dns://name'],
    ['dns://example.test/www', 'invalid dns target "dns://example.test/www": expected dns://name'],
    ['dns://example.test?type=MX', 'invalid dns target "dns://example.test?type=MX": expected dns://name'],
    ['dns://', 'invalid dns target "dns://": expected dns://name'],
    ['https://example.test', 'unsupported URL scheme https:'],
  ]) {
    t.match(await p.probe(dns(url)), { isUp: false, statusCode: null, errorMessage: message }, url)
  }
  t.same(questions, [])
})

t.test('a resolver that never answers: timeout within the deadline; an abort ends the check at once', async (t) => {
  const { p, questions } = await setup(t)
  // Timers of 3 s and 5 s set before the probe's own: equal ones fire in the order they were set, so the probe
  // returning between the two says its deadline ended it, however busy the machine.
  const timers: string[] = []
  const marks = [setTimeout(() => timers.push('3 s'), 3000), setTimeout(() => timers.push('5 s'), 5000)]
  t.teardown(() => marks.forEach(clearTimeout))
  // 3 s, so that the retry (c-ares's, half-way) has 1.5 s to reach the server: with 1 s a loaded CI machine once
  // fired the deadline before the retry's timer (one question seen).
  const result = await p.probe(dns('dns://silent.test', 'A', { timeoutSeconds: 3 }))
  t.match(result, { isUp: false, statusCode: null, errorMessage: 'dns A silent.test: timeout after 3000 ms' })
  t.same(timers, ['3 s'], 'returned at its deadline: after a 3 s timer set before it, before a 5 s one')
  t.ok(questions.length >= 2, 'asked again within the time (a lost datagram)')

  const abort = new AbortController()
  const running = p.probe(dns('dns://silent.test', 'A', { timeoutSeconds: 60 }), abort.signal)
  abort.abort()
  t.match(await running, { isUp: false, statusCode: null, errorMessage: 'aborted' })
})

t.test('a resolver that is not there is named', async (t) => {
  const p = testProber(t, { dnsServers: [`127.0.0.1:${await freePort()}`] })
  // Nothing listens on the port: the ICMP port unreachable of the loopback interface answers the datagram.
  t.match(await p.probe(dns('dns://example.test', 'A', { timeoutSeconds: 2 })),
    { isUp: false, errorMessage: 'dns A example.test: connection refused by the resolver' })
})

t.test('responseTimeMs comes from the injected clock; a closed prober asks nothing', async (t) => {
  const { server, questions } = await dnsServer(t, ZONE)
  let calls = 0
  const p = createProber({ allowPrivateTargets: true, dnsServers: [server], now: () => (calls++ === 0 ? 1000 : 1007.6) })
  t.match(await p.probe(dns('dns://example.test')), { isUp: true, responseTimeMs: 8 })
  await p.close()
  t.match(await p.probe(dns('dns://example.test')), { isUp: false, errorMessage: 'prober closed' })
  t.equal(questions.length, 1)
})
