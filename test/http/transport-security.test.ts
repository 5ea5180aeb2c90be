// HSTS and the CSP's upgrade-insecure-requests only over https: Swagger UI and the dashboard over plain http on a
// LAN address get neither (with them, a browser asks https:// for every asset: a blank /docs), and behind a trusted
// TLS proxy (TRUST_PROXY, X-Forwarded-Proto: https) both. (The real browser: test/e2e/swagger-ui-lan.test.ts.)
import t from 'tap'
import { buildTestApp } from '../helper.ts'

// Swagger UI's page, one of its assets and a dashboard page (their headers come from different plugins).
const URLS = ['/docs', '/docs/static/index.css', '/sign-in']
const YEAR = 'max-age=31536000'

t.test('over plain http: no upgrade-insecure-requests and no HSTS, on any host name', async (t) => {
  const { app } = await buildTestApp(t)
  for (const url of URLS) {
    for (const host of ['192.168.1.20:3000', 'pingward.lan:3000', 'localhost:3000']) {
      const res = await app.inject({ url, headers: { host } })
      t.equal(res.statusCode, 200, `${url} at ${host}`)
      t.match(res.headers['content-security-policy'], /default-src '(self|none)'/, `${url}: a policy`)
      t.notMatch(res.headers['content-security-policy'], 'upgrade-insecure-requests', `${url} at ${host}: nothing upgraded`)
      t.equal(res.headers['strict-transport-security'], undefined, `${url} at ${host}: no HSTS`)
    }
  }
  // Without TRUST_PROXY a client's X-Forwarded-Proto is not believed.
  const forged = await app.inject({ url: '/docs', headers: { 'x-forwarded-proto': 'https' } })
  t.notMatch(forged.headers['content-security-policy'], 'upgrade-insecure-requests')
  t.equal(forged.headers['strict-transport-security'], undefined)
})

t.test('over https through a trusted proxy: upgrade-insecure-requests and HSTS', async (t) => {
  const { app } = await buildTestApp(t, { env: { TRUST_PROXY: '1' } })
  for (const url of URLS) {
    const res = await app.inject({ url, headers: { host: 'pingward.example.com', 'x-forwarded-proto': 'https' } })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-security-policy'], /(^|;)\s*upgrade-insecure-requests(;|$)/, `${url}: upgraded`)
    t.equal(res.headers['strict-transport-security'], YEAR, `${url}: HSTS for a year`)
  }
  // The same server asked over plain http (the proxy's http side, or a health check) still gets neither.
  const plain = await app.inject({ url: '/sign-in', headers: { 'x-forwarded-proto': 'http' } })
  t.notMatch(plain.headers['content-security-policy'], 'upgrade-insecure-requests')
  t.equal(plain.headers['strict-transport-security'], undefined)
  // The dashboard keeps the rest of its policy over https.
  const page = await app.inject({ url: '/sign-in', headers: { 'x-forwarded-proto': 'https' } })
  t.match(page.headers['content-security-policy'], "default-src 'none'")
  t.equal(page.headers['x-frame-options'], 'DENY')
})
