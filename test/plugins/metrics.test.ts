// GET /metrics: off (404) without METRICS_TOKEN, 401 without the right token, and after real checks of a local
// target and a real webhook delivery, text that a strict parser of the exposition format reads with the right values.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { startJobs } from '../../src/jobs.ts'
import { buildTestApp, makeMonitor, makeUser, request, testConfig, until, usingPostgres } from '../helper.ts'
import { parsePrometheusText, sampleValue, type Family } from '../support/prometheus-text.ts'
import { targetServer } from '../support/target-server.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const TOKEN = 'metrics-token-for-the-test-0123'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

t.test('without METRICS_TOKEN, /metrics is off: 404 as an unknown path, and nothing is counted', async (t) => {
  const { app } = await buildTestApp(t)
  const unknown = await app.inject({ url: '/no-such-path' })
  for (const headers of [{}, bearer(TOKEN)]) {
    const res = await app.inject({ url: '/metrics', headers })
    t.same([res.statusCode, res.json()], [unknown.statusCode, unknown.json()], 'answered as a path that does not exist')
  }
  t.equal(app.metrics, undefined)
})

t.test('a missing or wrong token is 401 with a Bearer challenge; the right one gets the text format', async (t) => {
  const { app } = await buildTestApp(t, { env: { METRICS_TOKEN: TOKEN } })
  for (const headers of [{}, bearer('metrics-token-for-the-test-0124'), bearer(`${TOKEN}x`), { authorization: `Basic ${TOKEN}` }, { authorization: TOKEN }]) {
    const res = await app.inject({ url: '/metrics', headers })
    t.same([res.statusCode, res.json()], [401, { error: 'Unauthorized' }], JSON.stringify(headers))
    t.match(res.headers['www-authenticate'], /^Bearer\b/, 'a Bearer challenge')
  }
  const { auth } = await makeUser(app)
  t.equal((await app.inject({ url: '/metrics', headers: auth })).statusCode, 401, 'an API key is not the metrics token')
  const res = await app.inject({ url: '/metrics', headers: { authorization: `bearer  ${TOKEN}` } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  const families = parsePrometheusText(res.body)
  t.ok(sampleValue(families, 'process_resident_memory_bytes') > 0, 'the process metrics are there too')
})

t.test('the metrics table of docs/operations.md names every value of each status or outcome label exposed', async (t) => {
  const { app } = await buildTestApp(t, { env: { METRICS_TOKEN: TOKEN } })
  // A checker's series are there from its start, an agent location's from its first batch.
  app.metrics!.checking('default')
  app.metrics!.agentBatch('lab', { recorded: 0, late: 0, duplicates: 0, unassigned: 0 })
  const families = parsePrometheusText((await app.inject({ url: '/metrics', headers: bearer(TOKEN) })).body)
  const table = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8')
  const labelled = [...families.values()].filter((family) => family.name.startsWith('pingward_'))
    .flatMap((family) => ['status', 'outcome', 'result'].map((label) => ({ family, label })))
    .filter(({ family, label }) => family.samples.some((sample) => label in sample.labels))
  t.ok(labelled.length >= 5, 'the monitors, deliveries, checks, attempts and agents\' results series are exposed')
  for (const { family, label } of labelled) {
    const row = table.split('\n').find((line) => line.startsWith(`| \`${family.name}{`))
    t.ok(row, `${family.name} has a row`)
    for (const value of new Set(family.samples.map((sample) => sample.labels[label]))) {
      t.match(row, `\`${value}\``, `${family.name}{${label}="${value}"} is in its row`)
    }
  }
})

t.test('after real checks and a real webhook delivery, the counters and gauges say what happened', async (t) => {
  const target = await targetServer(t, (req, res) => {
    // /slow answers after 100 ms: its monitor's checks pass, slower than its degraded_after_ms.
    setTimeout(() => res.writeHead(req.url === '/down' ? 500 : 200).end('ok'), req.url === '/slow' ? 100 : 0)
  })
  const secrets: string[] = []
  const receiver = await webhookReceiver(t, { verifyWith: () => secrets })
  const env = { METRICS_TOKEN: TOKEN, ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const { auth } = await makeUser(app)
  const channel = (await request(app, auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` } },
  })).json().data
  secrets.push(channel.secret)
  const up = await makeMonitor(app, auth, { url: `${target.url}/up` })
  await makeMonitor(app, auth, { url: `${target.url}/up`, name: 'Second' })
  await makeMonitor(app, auth, { url: `${target.url}/down`, failure_threshold: 1, notification_channel_ids: [channel.id] })
  await makeMonitor(app, auth, { url: `${target.url}/up`, is_active: false })
  await makeMonitor(app, auth, { url: `${target.url}/slow`, name: 'Slow', degraded_after_ms: 20, failure_threshold: 1 })
  await request(app, auth, { url: `/api/v1/monitors/${up.id}` })
  await request(app, auth, { url: '/api/v1/monitors/00000000-0000-4000-8000-000000000000' })

  let lastText = ''
  const scrape = async (): Promise<Map<string, Family>> => {
    const res = await app.inject({ url: '/metrics', headers: bearer(TOKEN) })
    t.equal(res.statusCode, 200)
    lastText = res.body
    return parsePrometheusText(res.body)
  }
  const value = (families: Map<string, Family>, name: string, labels = {}) => sampleValue(families, name, labels)

  // The checker of this process, as server.ts runs it: its loop finds the monitors, and the incident's
  // notification goes to the receiver through its delivery worker.
  const jobs = startJobs({ config: testConfig(env), db: app.db, log: app.log, metrics: app.metrics })
  try {
    await receiver.waitFor(1)
    await until(async () => {
      const now = await scrape()
      return ['up', 'degraded', 'down'].reduce((sum, outcome) => sum + value(now, 'pingward_checks_total', { outcome }), 0) === 4 &&
        value(now, 'pingward_delivery_attempts_total', { result: 'delivered' }) === 1
    })
  } finally {
    await jobs.stop()
  }
  // Read once all is still: a scrape during the work reads the gauges' rows before counters that move meanwhile.
  const families = await scrape()
  t.equal(receiver.received[0].payload.type, 'incident.opened')

  t.equal(value(families, 'pingward_checks_total', { outcome: 'up' }), 2)
  t.equal(value(families, 'pingward_checks_total', { outcome: 'down' }), 1)
  t.equal(value(families, 'pingward_checks_total', { outcome: 'degraded' }), 1)
  t.equal(value(families, 'pingward_checks_total', { outcome: 'up', location: 'default' }), 2, 'by the checker\'s location')
  t.ok(value(families, 'pingward_check_duration_seconds_sum', { outcome: 'degraded' }) >= 0.1, 'the slow check took its 100 ms')
  t.equal(value(families, 'pingward_check_duration_seconds_count', { outcome: 'up' }), 2)
  t.equal(value(families, 'pingward_check_duration_seconds_count', { outcome: 'down' }), 1)
  t.ok(value(families, 'pingward_check_duration_seconds_sum', { outcome: 'up' }) > 0)
  t.equal(value(families, 'pingward_checker_lateness_seconds_count'), 4)
  t.equal(value(families, 'pingward_claim_batch_size_sum', { loop: 'checker' }), 4, 'the claims took the 4 active monitors')
  t.equal(value(families, 'pingward_claim_batch_size_sum', { loop: 'delivery' }), 1, 'one claim took the one channel')
  t.equal(value(families, 'pingward_delivery_attempts_total', { result: 'delivered' }), 1)
  t.equal(value(families, 'pingward_delivery_attempts_total', { result: 'failed' }), 0)
  t.same(['pending', 'up', 'degraded', 'down', 'paused'].map((status) => value(families, 'pingward_monitors', { status })), [0, 2, 1, 1, 1])
  t.same(['pending', 'delivered', 'failed', 'dead'].map((status) => value(families, 'pingward_deliveries', { status })), [0, 1, 0, 0])
  t.equal(families.get('pingward_monitors')?.type, 'gauge')
  t.equal(families.get('pingward_checks_total')?.type, 'counter')
  t.equal(families.get('pingward_check_duration_seconds')?.type, 'histogram')

  // HTTP requests by route pattern, never by raw URL.
  const http = (method: string, route: string, status: number) =>
    value(families, 'pingward_http_requests_total', { method, route, status_code: String(status) })
  t.equal(http('POST', '/api/v1/monitors', 201), 5)
  t.equal(http('POST', '/api/v1/notification-channels', 201), 1)
  t.equal(http('GET', '/api/v1/monitors/:id', 200), 1)
  t.equal(http('GET', '/api/v1/monitors/:id', 404), 1)
  t.notOk(families.get('pingward_http_requests_total')!.samples.some((s) => s.labels.route.includes(up.id)), 'no raw URL as a label')
  t.equal(value(families, 'pingward_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/monitors' }), 5)

  t.equal(value(families, 'pingward_db_pool_size'), usingPostgres ? 10 : 1)
  t.ok(value(families, 'pingward_db_pool_in_use') >= 0)
  t.equal(value(families, 'pingward_db_pool_waiting'), 0)

  // Prometheus's own checker and linter, where Debian's prometheus package is installed.
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: lastText, encoding: 'utf8' })
  if (promtool.error) t.comment(`promtool not run: ${promtool.error.message}`)
  else t.equal(promtool.status, 0, `promtool check metrics: ${promtool.stdout}${promtool.stderr}`)
})

t.test('the parser refuses what Prometheus would', async (t) => {
  const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n'
  t.equal(sampleValue(parsePrometheusText(ok), 'a_total', { x: '1' }), 2)
  for (const [bad, why] of [
    [ok.slice(0, -1), 'no final newline'],
    ['a_total 1\n', 'no TYPE'],
    [`${ok}a_total{x="1"} 3\n`, 'a duplicate series'],
    ['# TYPE a gauge\na{x="1} 1\n', 'an unterminated label'],
    ['# TYPE a gauge\na 1x\n', 'not a number'],
    ['# TYPE a counter\na -1\n', 'a negative counter'],
    ['# TYPE a gauge\n# TYPE b gauge\nb 1\na 1\n', 'a family split'],
    ['# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', 'buckets not cumulative'],
    ['# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', 'no +Inf bucket'],
  ]) {
    t.throws(() => parsePrometheusText(bad), why)
  }
})
