// `npm start` on PostgreSQL runs its background jobs on a thread of their own: the API's GET /metrics sums that
// thread's instruments into its own, a failure of the thread reaches the main thread, and SIGTERM stops both.
import t, { type Test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import { startJobsThread } from '../src/runtime/jobs-thread.ts'
import { openMigratedDatabase } from '../src/db/migrate.ts'
import { createMonitor } from '../src/monitors/service.ts'
import { createUser } from '../src/repositories/users.ts'
import { withMonitorDefaults } from '../src/monitors/schema.ts'
import { childDatabase, outputWaiter, spawnPingward, testAudit, until, usingPostgres } from './helper.ts'
import { parsePrometheusText, sampleValue } from './support/prometheus-text.ts'
import { freePort, targetServer } from './support/target-server.ts'

const TOKEN = 'jobs-thread-metrics-token-0123456789'
const skip = usingPostgres ? false : 'the embedded database has one connection, so its jobs stay on the main thread'

function startServer (t: Test, vars: Record<string, string>) {
  const server = spawnPingward('src/server.ts', [], { ...vars, ALLOW_PRIVATE_TARGETS: 'true', METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info' })
  let out = ''
  const { wake, waitFor } = outputWaiter(server, () => out, () => out)
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  server.on('close', wake)
  const exit = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)))
  t.teardown(() => { server.kill('SIGKILL') })
  return { server, waitFor, exit, output: () => out }
}

t.test('the jobs thread checks, its metrics are in the API\'s scrape, and SIGTERM stops both', { skip }, async (t) => {
  const target = await targetServer(t, (_req, res) => { res.end('ok') })
  const vars = await childDatabase(t, 'pingward-jobs-thread-')
  const setup = await openMigratedDatabase({ DATA_DIR: 'memory://', DATABASE_URL: vars.DATABASE_URL })
  const user = await createUser(setup.db, 'jobs-thread@example.com')
  await createMonitor(setup.db, { orgId: user.id }, withMonitorDefaults({ name: 'Up', url: `${target.url}/` }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  await setup.close()

  const port = await freePort()
  const { server, waitFor, exit, output } = startServer(t, { ...vars, PORT: String(port), CHECK_CONCURRENCY: '50' })
  await waitFor(/"msg":"jobs running on their own thread"/)
  t.match(output(), /"role":"jobs"[^\n]*"msg":"checker started"/, 'the checker logs as the jobs thread')

  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200)
  const scrape = async () => parsePrometheusText(await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text())
  await until(async () => sampleValue(await scrape(), 'pingward_checks_total', { outcome: 'up' }) === 1 || undefined)
  // A scrape reads the counts by status before it gathers the counters: one begun after the check was counted sees it.
  const families = await scrape()
  t.equal(sampleValue(families, 'pingward_claim_batch_size_sum', { loop: 'checker' }), 1, 'the thread\'s claim, in the API\'s scrape')
  t.equal(sampleValue(families, 'pingward_db_pool_size'), 10 + 5, 'both pools: the API\'s 10 and the jobs\' 5')
  t.equal(sampleValue(families, 'pingward_monitors', { status: 'up' }), 1, 'the counts by status, read by the API')
  t.ok(sampleValue(families, 'pingward_http_requests_total', { method: 'GET', route: '/healthz', status_code: '200' }) >= 1, 'the API\'s own requests')
  t.equal(families.get('process_cpu_seconds_total')?.samples.length, 1, 'the process\'s own metrics once, not once per thread')

  server.kill('SIGTERM')
  t.equal(await exit, 0, 'stops cleanly')
  t.match(output(), /"role":"jobs"[^\n]*"msg":"checker stopped"/, 'the jobs thread stopped its checker before the process ended')
})

t.test('a failure of the jobs thread reaches the main thread, and stop() still resolves', async (t) => {
  const failures: Error[] = []
  const logged: unknown[] = []
  const log = { error: (...args: unknown[]) => logged.push(args), info: () => {} } as unknown as FastifyBaseLogger
  const jobs = startJobsThread({ log, poolSize: 1, entry: new URL('./support/failing-thread.ts', import.meta.url), onFailure: (err) => failures.push(err) })
  await until(() => failures.length > 0)
  t.match(failures[0].message, /the jobs could not start/)
  t.equal(logged.length, 1, 'logged as the thread\'s failure')
  await jobs.stop()
})
