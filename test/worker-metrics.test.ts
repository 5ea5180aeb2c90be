// `npm run worker` with METRICS_PORT serves its own GET /metrics: its checks, behind the same token; the
// database's counts by status are left to the API process.
import t from 'tap'
import { openMigratedDatabase } from '../src/db/migrate.ts'
import { createMonitor } from '../src/monitors/service.ts'
import { createUser } from '../src/repositories/users.ts'
import { withMonitorDefaults } from '../src/monitors/schema.ts'
import { childDatabase, outputWaiter, spawnPingward, testAudit, until } from './helper.ts'
import { parsePrometheusText, sampleValue } from './support/prometheus-text.ts'
import { freePort, targetServer } from './support/target-server.ts'

const TOKEN = 'worker-metrics-token-0123456789'

t.test('the worker serves its own metrics on METRICS_PORT, with the token only', async (t) => {
  const target = await targetServer(t, (_req, res) => { res.end('ok') })
  const vars = await childDatabase(t, 'pingward-worker-metrics-')
  // The monitor first: the embedded database is the worker's alone once it runs.
  const setup = await openMigratedDatabase({ DATA_DIR: vars.DATA_DIR ?? 'memory://', DATABASE_URL: vars.DATABASE_URL })
  const user = await createUser(setup.db, 'worker-metrics@example.com')
  await createMonitor(setup.db, { orgId: user.id }, withMonitorDefaults({ name: 'Up', url: `${target.url}/` }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  await setup.close()

  const port = await freePort()
  const worker = spawnPingward('src/worker.ts', [], { ...vars, ALLOW_PRIVATE_TARGETS: 'true', METRICS_TOKEN: TOKEN, METRICS_PORT: String(port), LOG_LEVEL: 'info' })
  let out = ''
  const { wake, waitFor } = outputWaiter(worker, () => out, () => out)
  worker.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  worker.stderr.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  worker.on('close', wake)
  const exit = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)))
  t.teardown(() => { worker.kill('SIGKILL') })
  await waitFor(/"msg":"checker started"/)

  const url = `http://127.0.0.1:${port}/metrics`
  for (const headers of [{}, { authorization: 'Bearer worker-metrics-token-0123456780' }] as Array<Record<string, string>>) {
    const res = await fetch(url, { headers })
    t.same([res.status, await res.json()], [401, { error: 'Unauthorized' }])
  }
  t.equal((await fetch(`http://127.0.0.1:${port}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404)
  const families = await until(async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
    t.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
    const parsed = parsePrometheusText(await res.text())
    return sampleValue(parsed, 'pingward_checks_total', { outcome: 'up' }) === 1 ? parsed : undefined
  })
  t.equal(sampleValue(families, 'pingward_claim_batch_size_sum', { loop: 'checker' }), 1)
  t.equal(sampleValue(families, 'pingward_db_pool_size'), vars.DATABASE_URL ? 20 : 1)
  t.notOk(families.has('pingward_monitors'), 'the counts by status are the API\'s to serve')
  t.notOk(families.has('pingward_http_requests_total'), 'the worker has no API')

  worker.kill('SIGTERM')
  t.equal(await exit, 0, 'stops cleanly, its metrics server with it')
})
