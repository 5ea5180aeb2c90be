// The checker's lookups against a real local DNS server (dns2): answers kept for their TTL and asked again after
// it, shared by simultaneous lookups, the hosts file first, the system's resolver for what DNS does not know,
// and, through the prober, the address policy applied to a kept answer as to a fresh one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { cachingLookup, HOSTS_REREAD_MS, parseHosts, type CachingLookupOptions } from '../../src/net/caching-lookup.ts'
import type { Lookup } from '../../src/net/pinned-lookup.ts'
import type { Teardown } from '../helper.ts'
import { dnsServer, type ZoneEntry } from '../support/dns-server.ts'
import { getTarget, testProber } from '../support/prober.ts'
import { targetServer } from '../support/target-server.ts'

const SITE = [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }]

/** A caching lookup asking a fresh local server of `zone`, on a clock the test moves; no hosts file unless given. */
async function setup (tt: Teardown, zone: Record<string, ZoneEntry>, options: CachingLookupOptions = {}) {
  const { server, questions } = await dnsServer(tt, zone)
  const clock = { ms: 1_000_000 }
  const lookup = cachingLookup({ servers: [server], hostsFile: null, now: () => clock.ms, ...options })
  // The A and AAAA questions of a lookup go out together, in no fixed order.
  const asked = () => [...questions].sort()
  return { lookup, asked, clock }
}

t.test('an answer is kept for its TTL, then asked again', async (t) => {
  const { lookup, asked, clock } = await setup(t, { 'site.test': { A: [SITE[0].address], AAAA: [SITE[1].address], ttl: 30 } })
  t.same(await lookup('site.test'), SITE, 'IPv4 first, then IPv6')
  t.same(asked(), ['A site.test', 'AAAA site.test'])
  clock.ms += 29_999
  t.same(await lookup('site.test'), SITE)
  t.same(await lookup('Site.TEST.'), SITE, 'the same name in another case, or with its root dot')
  t.same(asked(), ['A site.test', 'AAAA site.test'], 'nothing asked within the TTL')
  clock.ms += 1
  t.same(await lookup('site.test'), SITE)
  t.same(asked(), ['A site.test', 'A site.test', 'AAAA site.test', 'AAAA site.test'], 'asked again once it ran out')
})

t.test('a TTL of 0 is never kept; a long one is cut to maxTtlSeconds', async (t) => {
  const { lookup, asked, clock } = await setup(t, { 'zero.test': { A: ['93.184.215.14'], ttl: 0 }, 'long.test': { A: ['93.184.215.15'], ttl: 86_400 } }, { maxTtlSeconds: 60 })
  await lookup('zero.test')
  await lookup('zero.test')
  t.equal(asked().filter((q) => q === 'A zero.test').length, 2)
  await lookup('long.test')
  clock.ms += 59_999
  await lookup('long.test')
  t.equal(asked().filter((q) => q === 'A long.test').length, 1)
  clock.ms += 1
  t.same(await lookup('long.test'), [{ address: '93.184.215.15', family: 4 }])
  t.equal(asked().filter((q) => q === 'A long.test').length, 2)
})

t.test('simultaneous lookups of a name share one question', async (t) => {
  const { lookup, asked } = await setup(t, { 'site.test': { A: [SITE[0].address] } })
  const answers = await Promise.all(Array.from({ length: 50 }, () => lookup('site.test')))
  t.ok(answers.every((answer) => answer[0].address === SITE[0].address))
  t.same(asked(), ['A site.test', 'AAAA site.test'])
})

t.test('at most maxNames names are kept, the oldest dropped first', async (t) => {
  const zone = { 'a.test': { A: ['93.184.215.1'] }, 'b.test': { A: ['93.184.215.2'] }, 'c.test': { A: ['93.184.215.3'] } }
  const { lookup, asked } = await setup(t, zone, { maxNames: 2 })
  for (const name of ['a.test', 'b.test', 'c.test', 'c.test', 'b.test', 'a.test']) await lookup(name)
  t.same(asked().filter((q) => q.startsWith('A ')), ['A a.test', 'A a.test', 'A b.test', 'A c.test'])
})

t.test('a name DNS has no address for goes to the fallback, whose answer is not kept', async (t) => {
  const fallen: string[] = []
  const fallback: Lookup = async (name) => {
    fallen.push(name)
    if (name === 'intranet') return [{ address: '10.1.2.3', family: 4 }]
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
  }
  const { lookup } = await setup(t, { 'empty.test': {} }, { fallback })
  t.same(await lookup('intranet'), [{ address: '10.1.2.3', family: 4 }], 'NXDOMAIN: as the system resolves it (search domains, other sources)')
  t.same(await lookup('intranet'), [{ address: '10.1.2.3', family: 4 }])
  await t.rejects(lookup('empty.test'), { code: 'ENOTFOUND' }, 'no address in DNS: the fallback\'s failure')
  t.same(fallen, ['intranet', 'intranet', 'empty.test'])
})

t.test('the hosts file comes first, and is read again after HOSTS_REREAD_MS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pingward-hosts-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const hostsFile = join(dir, 'hosts')
  writeFileSync(hostsFile, '127.0.0.1 localhost\n127.0.0.2 site.test # pinned by the operator\n::1 site.test\n')
  const { lookup, asked, clock } = await setup(t, { 'site.test': { A: [SITE[0].address] }, 'other.test': { A: [SITE[0].address] } }, { hostsFile })
  t.same(await lookup('SITE.test'), [{ address: '127.0.0.2', family: 4 }, { address: '::1', family: 6 }])
  t.same(await lookup('other.test'), [SITE[0]], 'a name it does not list: DNS')
  t.same(asked(), ['A other.test', 'AAAA other.test'])
  writeFileSync(hostsFile, '127.0.0.3 site.test\n')
  clock.ms += HOSTS_REREAD_MS - 1
  t.same(await lookup('site.test'), [{ address: '127.0.0.2', family: 4 }, { address: '::1', family: 6 }])
  clock.ms += 1
  t.same(await lookup('site.test'), [{ address: '127.0.0.3', family: 4 }], 'the file as it is now')
  rmSync(hostsFile)
  clock.ms += HOSTS_REREAD_MS
  t.same(await lookup('site.test'), [SITE[0]], 'no file: DNS alone')
})

t.test('parseHosts: comments, aliases, case, both families, lines that name no address', async (t) => {
  const names = parseHosts('# a comment\n\n127.0.0.1\tlocalhost Local.Alias\n::1 localhost ip6-localhost # loopback\nnot-an-ip name.test\n127.0.0.1 localhost\n')
  t.same(Object.fromEntries(names), {
    localhost: [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }],
    'local.alias': [{ address: '127.0.0.1', family: 4 }],
    'ip6-localhost': [{ address: '::1', family: 6 }],
  })
})

t.test('through the prober: one question for many checks, and the policy applied to a kept answer', async (t) => {
  const target = await targetServer(t, (_req, res) => res.end('ok'))
  const { lookup, asked } = await setup(t, { 'loop.test': { A: ['127.0.0.1'], ttl: 300 } })
  const allowed = testProber(t, { lookup })
  for (let i = 0; i < 3; i++) t.match(await allowed.probe(getTarget(`http://loop.test:${target.port}/`)), { isUp: true, statusCode: 200 })
  const strict = testProber(t, { lookup, allowPrivateTargets: false })
  t.match(await strict.probe(getTarget(`http://loop.test:${target.port}/`)), { isUp: false, statusCode: null, errorMessage: /^target refused: loop\.test resolves to a private address;/ })
  t.same(asked(), ['A loop.test', 'AAAA loop.test'], 'asked once for all four checks')
})
