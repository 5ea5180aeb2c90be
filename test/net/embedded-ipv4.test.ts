// Issue #12, defect 6: IPv6 forms that embed a private IPv4 address, refused by the API and by the checker alike.
import t from 'tap'
import { createProber, type ProbeTarget } from '../../src/checker/probe.ts'
import { buildTestApp, makeUser, request, validMonitor } from '../helper.ts'

// Each embeds 127.0.0.1 or 10.0.0.1; the first two were accepted (and connected to) before the fix.
const EMBEDDING_PRIVATE = [
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
  '64:ff9b:1::7f00:1', // local-use NAT64 (RFC 8215)
  '::ffff:0:a00:1',
  '64:ff9b:1::a00:1',
  '2002:7f00:1::1', // 6to4
  '2002:a00:1::1',
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
  '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo, client 10.0.0.1
]

const CHECKER_REFUSED = /^target refused: .* a private address; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true$/

t.test('the API refuses a monitor URL of each form with 400 naming body/url', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const post = (url: string) => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: validMonitor({ url }) })
  for (const ip of EMBEDDING_PRIVATE) {
    const res = await post(`http://[${ip}]:8080/`)
    t.equal(res.statusCode, 400, ip)
    t.equal(res.json().error, `body/url: ${ip} is not a public address; private, loopback, link-local and metadata addresses are refused; ` +
      'the operator can allow them with ALLOW_PRIVATE_TARGETS=true; or check it from agent locations only, where each agent\'s own setting applies', ip)
  }
  // The same forms spelled with a dotted IPv4 tail are normalised by the URL parser, and refused the same.
  t.equal((await post('http://[::ffff:0:127.0.0.1]/')).statusCode, 400)
  t.equal((await post('http://[64:ff9b:1::10.0.0.1]/')).statusCode, 400)
  // A form that embeds a public address is a public address.
  t.equal((await post('http://[64:ff9b::808:808]/')).statusCode, 201, 'NAT64 of 8.8.8.8 is allowed')
  t.equal((await post('http://[2002:808:808::1]/')).statusCode, 201, '6to4 of 8.8.8.8 is allowed')
})

t.test('the checker refuses each form, as a URL literal and as the answer of a lookup, without connecting', async (t) => {
  const lookups: string[] = []
  const prober = createProber({
    allowPrivateTargets: false,
    lookup: async (hostname) => {
      lookups.push(hostname)
      return [{ address: hostname.replace(/\.test$/, '').replaceAll('-', ':'), family: 6 }]
    },
  })
  t.teardown(() => prober.close())
  // A short timeout: before the fix these probes went out and waited for an answer.
  const get = (url: string): ProbeTarget => ({ url, method: 'GET', expectedStatus: 200, timeoutSeconds: 1 })
  for (const ip of EMBEDDING_PRIVATE) {
    const literal = await prober.probe(get(`http://[${ip}]:8080/`))
    t.match(literal, { isUp: false, statusCode: null, errorMessage: CHECKER_REFUSED }, `literal ${ip}`)
    t.match(literal.errorMessage, `target refused: ${ip} is a private address;`)
    // The name stands for its own answer: "--ffff-0-7f00-1.test" resolves to ::ffff:0:7f00:1.
    const name = `${ip.replaceAll(':', '-')}.test`
    const resolved = await prober.probe(get(`http://${name}:8080/`))
    t.match(resolved, { isUp: false, statusCode: null, errorMessage: CHECKER_REFUSED }, `${name} resolving to ${ip}`)
    t.match(resolved.errorMessage, `target refused: ${name} resolves to a private address;`)
  }
  t.same(lookups, EMBEDDING_PRIVATE.map((ip) => `${ip.replaceAll(':', '-')}.test`), 'literals are not looked up; names once each')
})
