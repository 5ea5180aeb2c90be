// HTTPS checks against real local servers with certificates made by openssl in the test: the certificate's
// expiry and issuer are seen (verified or not), a verification failure names its cause, and the latest
// one is kept on the monitor until its URL changes (both databases).
import t from 'tap'
import https from 'node:https'
import { X509Certificate } from 'node:crypto'
import { createProber, type ProbeOptions } from '../../src/checker/probe.ts'
import { Checker } from '../../src/checker/scheduler.ts'
import { buildTestApp, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'
import { getTarget, testProber } from '../support/prober.ts'
import { caSignedCertificate, listen, selfSignedCertificate } from '../support/target-server.ts'

/** An HTTPS server with `tls`'s key and certificate, and its root too when `withRoot` (a chain). */
async function httpsServer (tt: Teardown, tls: { key: Buffer, cert: Buffer, ca?: Buffer }, withRoot = false): Promise<number> {
  const options = { key: tls.key, cert: withRoot && tls.ca ? Buffer.concat([tls.cert, tls.ca]) : tls.cert }
  return (await listen(tt, https.createServer(options, (_req, res) => res.end('ok')), { scheme: 'https' })).port
}

// localhost is 127.0.0.1, where the servers listen (the system's resolver may say ::1 first).
const prober = (tt: Teardown, options: Partial<ProbeOptions> = {}) => testProber(tt, { lookup: async () => [{ address: '127.0.0.1', family: 4 }], ...options })
const target = (url: string) => getTarget(url)
const expiryOf = (cert: Buffer) => new Date(new X509Certificate(cert).validTo)

const signed = caSignedCertificate(30)
const selfSigned = selfSignedCertificate()

t.test('a verified certificate: the check is up and carries its expiry and issuer', async (t) => {
  const port = await httpsServer(t, signed)
  const result = await prober(t, { tlsCa: signed.ca }).probe(target(`https://localhost:${port}/`))
  t.match(result, { isUp: true, errorMessage: null, tls: { issuer: 'Pingward Test CA, Pingward Test Root' } })
  t.equal(result.tls?.expiresAt.getTime(), expiryOf(signed.cert).getTime())
  const days = (result.tls!.expiresAt.getTime() - Date.now()) / 86_400_000
  t.ok(days > 29 && days <= 30, `expires in 30 days (${days.toFixed(2)})`)
})

t.test('a failed verification names its cause, and the certificate is still seen', async (t) => {
  const port = await httpsServer(t, signed)
  const p = prober(t, { tlsCa: signed.ca })
  const wrongHost = await p.probe(target(`https://127.0.0.1:${port}/`))
  t.match(wrongHost, { isUp: false, statusCode: null, errorMessage: 'TLS error: certificate is for localhost, not 127.0.0.1' })
  t.equal(wrongHost.tls?.expiresAt.getTime(), expiryOf(signed.cert).getTime())

  const untrusted = await prober(t).probe(target(`https://localhost:${port}/`))
  t.match(untrusted, { isUp: false, errorMessage: /^TLS error: certificate not trusted \(UNABLE_TO_[A-Z_]+\)$/ }, 'an unknown root')
  const chainPort = await httpsServer(t, signed, true)
  t.match(await prober(t).probe(target(`https://localhost:${chainPort}/`)),
    { isUp: false, errorMessage: 'TLS error: certificate chain ends in a self-signed root that is not trusted' }, 'an unknown root sent along')
  t.match(await p.probe(target(`https://localhost:${chainPort}/`)), { isUp: true }, 'the same chain with its root trusted')

  const expired = caSignedCertificate(-1) // notAfter a day before notBefore (now): expired since yesterday
  const expiredPort = await httpsServer(t, expired)
  const late = await prober(t, { tlsCa: expired.ca }).probe(target(`https://localhost:${expiredPort}/`))
  t.match(late, { isUp: false, errorMessage: `TLS error: certificate expired on ${expiryOf(expired.cert).toISOString().slice(0, 10)}` })
  t.equal(late.tls?.expiresAt.getTime(), expiryOf(expired.cert).getTime(), 'an expired certificate\'s expiry is still seen')

  const selfPort = await httpsServer(t, selfSigned)
  const own = await p.probe(target(`https://localhost:${selfPort}/`))
  t.match(own, { isUp: false, errorMessage: 'TLS error: self-signed certificate' })
  t.equal(own.tls?.expiresAt.getTime(), expiryOf(selfSigned.cert).getTime())
  t.equal(own.tls?.issuer, 'localhost')
})

t.test('a plain HTTP check and a refused connection carry no certificate', async (t) => {
  const p = prober(t)
  t.notOk('tls' in await p.probe(target('https://localhost:1/')), 'refused before TLS')
  t.notOk('tls' in await p.probe(target('http://localhost:1/')))
})

t.test('the monitor keeps what its latest HTTPS check saw; a check that saw none leaves it', async (t) => {
  const server = https.createServer({ key: signed.key, cert: signed.cert }, (_req, res) => res.end('ok'))
  const { port } = await listen(t, server, { scheme: 'https' })
  let now = new Date('2026-11-21T10:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const checker = new Checker({
    db: app.db, clock: () => now, log: app.log, prober: createProber({ allowPrivateTargets: true, tlsCa: signed.ca }), concurrency: 2, confirmDelayMs: 30_000,
  })
  t.teardown(() => checker.stop())
  const { auth } = await makeUser(app)
  const get = async (id: string) => (await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data
  const m = await makeMonitor(app, auth, { url: `https://localhost:${port}/`, interval_minutes: 1, failure_threshold: 1 })
  t.match(m, { tls_expires_at: null, tls_issuer: null })
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), {
    status: 'up', tls_expires_at: expiryOf(signed.cert).toISOString(), tls_issuer: 'Pingward Test CA, Pingward Test Root',
  })
  await new Promise((resolve) => server.close(resolve)) // refused from now on
  now = new Date(now.getTime() + 60_000)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'down', tls_expires_at: expiryOf(signed.cert).toISOString() }, 'a refused check leaves the last certificate')

  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { name: 'Renamed' } })
  t.match(await get(m.id), { tls_expires_at: expiryOf(signed.cert).toISOString() }, 'another change leaves it')
  const moved = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { url: 'http://localhost:1/' } })
  t.match(moved.json().data, { tls_expires_at: null, tls_issuer: null }, 'another URL forgets the old server\'s certificate')
})
