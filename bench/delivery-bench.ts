// The notification benchmark: how many deliveries one worker sends per second to a local receiver, and
// how long a notification takes from the incident's commit to the receiver's 2xx while the checker runs
// its monitors, 1,000 of them going down and up again with 3 webhook channels each; and the checker's figures
// in that same run without the channels (no delivery written or sent), what the notifications cost it.
import { join } from 'node:path'
import type { Runner } from './database.ts'
import { steady, type CheckerBenchOptions, type CheckerPhaseResult } from './checker-bench.ts'
import { processStats, startNode, waitForHttp, type Child } from './processes.ts'
import { freePort } from '../test/support/target-server.ts'

export interface DeliveryBenchOptions extends CheckerBenchOptions {
  /**
   * Monitors that go down and up again, each with `channelsPerMonitor` webhook channels: every
   * (monitors / flipping)-th, so that their checks, like anyone's, fall all over the minute.
   */
  flipping: number
  channelsPerMonitor: number
  /**
   * Rounds of the flip without and then with the notifications (A B A B ...): the control's lateness alone
   * moved from 8 to 15 ms p95 between two idle runs (2026-11-23), more than the 10% compared.
   */
  pairs: number
}

interface Percentiles { p50: number, p95: number, p99: number, max: number }

interface FlipResult {
  expected: number
  delivered: number
  /** From the delivery row's insert (in the incident's transaction, just before its commit) to the receiver's 2xx. */
  latencyMs: Percentiles
  /** Deliveries the receiver got more than once. */
  duplicates: number
  checker: CheckerPhaseResult
}

export interface DeliveryResults {
  drain: { deliveries: number, seconds: number, perSecond: number, cpuMsPerDelivery: number }
  /** One a round, with the notifications. */
  flips: FlipResult[]
  /** One a round, before its flip: the same flip with the monitors' channels unlinked (nothing is delivered). */
  controls: CheckerPhaseResult[]
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function percentiles (values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0
  return { p50: Math.round(at(0.5)), p95: Math.round(at(0.95)), p99: Math.round(at(0.99)), max: Math.round(sorted.at(-1) ?? 0) }
}

/** Every how many monitors one flips. */
const step = (options: DeliveryBenchOptions) => Math.max(1, Math.floor(options.monitors / options.flipping))

/**
 * Channels of the flipping monitors' owners, `perMonitor` each, covering that one monitor (not
 * all_monitors), pointing at the receiver; a trigger notes when each delivery row is written.
 */
async function prepareChannels (db: Runner, receiver: string, every: number, perMonitor: number): Promise<void> {
  await db.exec(`
    delete from notification_channels;
    delete from notification_events;
    insert into notification_channels (org_id, name, type, config, events, all_monitors, secret)
      select b.org_id, 'bench-' || b.idx || '-' || k, 'webhook', jsonb_build_object('url', '${receiver}/hook/' || b.idx || '/' || k),
             array['incident.opened', 'incident.resolved'], false, 'whsec_' || encode(sha256(b.id::text::bytea), 'base64')
      from bench_monitors b cross join generate_series(0, ${perMonitor - 1}) k where b.idx % ${every} = 0;
    insert into monitor_notification_channels (monitor_id, channel_id)
      select b.id, c.id from notification_channels c join bench_monitors b on b.idx = split_part(c.name, '-', 2)::int;
    create table if not exists bench_delivery_written (delivery_id uuid primary key, written_at timestamptz not null);
    truncate bench_delivery_written;
    create or replace function bench_delivery_written() returns trigger language plpgsql as $$
      begin insert into bench_delivery_written values (new.id, clock_timestamp()); return new; end $$;
    drop trigger if exists bench_delivery_written on notification_deliveries;
    create trigger bench_delivery_written after insert on notification_deliveries for each row execute function bench_delivery_written();
    analyze notification_channels; analyze monitor_notification_channels;
  `)
}

async function dropTrigger (db: Runner): Promise<void> {
  await db.exec('drop trigger if exists bench_delivery_written on notification_deliveries; drop table if exists bench_delivery_written')
}

function startWorker (options: DeliveryBenchOptions, onLine?: (line: string) => void): Child {
  return startNode('src/worker.ts', { DATABASE_URL: options.databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' },
    onLine ? { onLine } : { logFile: join(options.logDir, 'delivery-worker.log') })
}

async function arrivals (receiver: string): Promise<Array<[string, string, number]>> {
  return (await (await fetch(`${receiver}/__arrivals`)).json()) as Array<[string, string, number]>
}

/** One worker, every delivery of one `incident.opened` per flipping monitor due at once: deliveries per second. */
async function drain (options: DeliveryBenchOptions, receiver: string): Promise<DeliveryResults['drain']> {
  const payload = JSON.stringify({
    type: 'incident.opened',
    timestamp: new Date().toISOString(),
    data: {
      monitor: { id: '00000000-0000-4000-8000-000000000000', name: 'Monitor', url: `${receiver}/m1`, method: 'GET', interval_minutes: 1, status: 'down' },
      incident: { id: '00000000-0000-4000-8000-000000000001', status: 'open', cause: 'expected status 200, got 500', started_at: new Date().toISOString() },
      check: { id: '00000000-0000-4000-8000-000000000002', is_up: false, status_code: 500, response_time_ms: 3 },
    },
  }).replace(/'/g, "''")
  await options.db.exec(`
    update monitors set is_active = false;
    insert into notification_events (org_id, type, monitor_id, payload)
      select b.org_id, 'incident.opened', b.id, '${payload}'::jsonb from bench_monitors b where b.idx % ${step(options)} = 0;
    insert into notification_deliveries (channel_id, event_id, monitor_id, next_attempt_at)
      select mc.channel_id, e.id, e.monitor_id, now() + interval '1 day' from notification_events e
      join monitor_notification_channels mc on mc.monitor_id = e.monitor_id;
    analyze notification_deliveries;
  `)
  const [{ n }] = await options.db.query('select count(*)::int as n from notification_deliveries')
  let started!: () => void
  const ready = new Promise<void>((resolve) => { started = resolve })
  const worker = startWorker(options, (line) => { if (line.includes('"checker started"')) started() })
  await arrivals(receiver)
  try {
    await ready
    const cpu0 = processStats(worker.pid).cpuSeconds
    const t0 = Date.now()
    await options.db.exec('update notification_deliveries set next_attempt_at = now()')
    const deadline = Date.now() + 300_000
    for (;;) {
      await sleep(250)
      const [row] = await options.db.query("select count(*)::int as done from notification_deliveries where status = 'delivered'")
      if (row.done >= n || Date.now() > deadline) break
    }
    const cpu = processStats(worker.pid).cpuSeconds - cpu0
    const got = await arrivals(receiver)
    const seconds = (Math.max(...got.map((a) => a[2])) - t0) / 1000
    return { deliveries: got.length, seconds, perSecond: got.length / seconds, cpuMsPerDelivery: cpu * 1000 / Math.max(1, got.length) }
  } finally {
    await worker.stop()
    await options.db.exec('delete from notification_events')
  }
}

/**
 * The checker's steady state (one worker) with the flipping monitors failing for 70 s after the warm-up,
 * then answering again.
 */
async function flippingChecker (options: DeliveryBenchOptions, receiver: string): Promise<CheckerPhaseResult> {
  // The incidents need a minute to open and a minute to resolve, whatever the scale's window.
  const measureSeconds = Math.max(options.measureSeconds, 170)
  const schedule: Promise<void>[] = []
  const checker = await steady({ ...options, measureSeconds }, receiver, 1, async (start) => {
    await options.db.exec(`update monitors m set failure_threshold = 1, recovery_threshold = 1
      from bench_monitors b where b.id = m.id and b.idx % ${step(options)} = 0`)
    const windowStart = start.getTime() + options.warmupSeconds * 1000
    schedule.push((async () => {
      await sleep(windowStart + 5000 - Date.now())
      await fetch(`${receiver}/__down?every=${step(options)}`, { method: 'POST' })
      await sleep(70_000)
      await fetch(`${receiver}/__down?every=0`, { method: 'POST' })
    })())
  })
  await Promise.all(schedule)
  return checker
}

/** The flip with the flipping monitors' channels unlinked for its duration: the checker's figures alone. */
async function controlFlip (options: DeliveryBenchOptions, receiver: string): Promise<CheckerPhaseResult> {
  await options.db.exec(`create table bench_links as select * from monitor_notification_channels;
    delete from monitor_notification_channels`)
  try {
    return await flippingChecker(options, receiver)
  } finally {
    await options.db.exec(`insert into monitor_notification_channels select * from bench_links; drop table bench_links;
      delete from notification_events`)
  }
}

/**
 * The checker's steady state (`monitors` at a 1-minute interval, one worker) with the first `flipping`
 * monitors failing for a bit over a minute after the warm-up, then answering again: each opens an incident
 * and resolves it, 2 x `channelsPerMonitor` deliveries. Latency from the delivery row's insert to the receiver.
 */
async function flip (options: DeliveryBenchOptions, receiver: string): Promise<FlipResult> {
  await arrivals(receiver)
  const checker = await flippingChecker(options, receiver)
  const got = await arrivals(receiver)
  const rows = await options.db.query(`
    select d.event_id, split_part(c.name, '-', 2) || '/' || split_part(c.name, '-', 3) as path,
           extract(epoch from w.written_at) * 1000 as written_ms, d.status
    from notification_deliveries d join notification_channels c on c.id = d.channel_id
    join bench_delivery_written w on w.delivery_id = d.id`)
  const firstArrival = new Map<string, number>()
  let duplicates = 0
  for (const [id, path, at] of got) {
    const key = `${id} ${path.slice('/hook/'.length)}`
    if (firstArrival.has(key)) duplicates++
    else firstArrival.set(key, at)
  }
  const latencies: number[] = []
  for (const row of rows) {
    const at = firstArrival.get(`${row.event_id} ${row.path}`)
    if (at !== undefined) latencies.push(at - Number(row.written_ms))
  }
  return { expected: rows.length, delivered: latencies.length, latencyMs: percentiles(latencies), duplicates, checker }
}

export async function runDeliveryBench (options: DeliveryBenchOptions): Promise<DeliveryResults> {
  const port = await freePort()
  const receiverChild = startNode('bench/notification-receiver.ts', { PORT: String(port) }, { logFile: join(options.logDir, 'receiver.log') })
  const receiver = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${receiver}/__stats`, receiverChild)
    await prepareChannels(options.db, receiver, step(options), options.channelsPerMonitor)
    options.log(`  drain: ${options.flipping * options.channelsPerMonitor} deliveries due at once, one worker`)
    const drained = await drain(options, receiver)
    options.log(`  drain: ${drained.deliveries} deliveries in ${drained.seconds.toFixed(1)} s = ${Math.round(drained.perSecond)}/s, ` +
      `${drained.cpuMsPerDelivery.toFixed(2)} CPU ms each`)
    const flips: FlipResult[] = []
    const controls: CheckerPhaseResult[] = []
    for (let round = 1; round <= options.pairs; round++) {
      options.log(`  round ${round}, flip without notifications: ${options.monitors} monitors checked, every ${step(options)}th of them down then up, one worker`)
      const control = await controlFlip(options, receiver)
      controls.push(control)
      options.log(`  flip without notifications: checker ${control.checksPerSecond.toFixed(1)} checks/s, lateness p95 ${control.latenessMs.p95} ms, RSS ${control.rssMb} MB`)
      options.log(`  round ${round}, flip with notifications: the same, each flipping monitor with its channels`)
      const flipped = await flip(options, receiver)
      flips.push(flipped)
      options.log(`  flip: ${flipped.delivered}/${flipped.expected} delivered, latency p50/p95/p99/max ${flipped.latencyMs.p50}/` +
        `${flipped.latencyMs.p95}/${flipped.latencyMs.p99}/${flipped.latencyMs.max} ms, duplicates ${flipped.duplicates}; checker ` +
        `${flipped.checker.checksPerSecond.toFixed(1)} checks/s, lateness p95 ${flipped.checker.latenessMs.p95} ms, RSS ${flipped.checker.rssMb} MB`)
    }
    return { drain: drained, flips, controls }
  } finally {
    await dropTrigger(options.db)
    await receiverChild.stop()
  }
}

const verdict = (ok: boolean) => ok ? 'yes' : '**no**'

/**
 * The report's section; `baseline` is the checker's one-worker run with no monitor failing, when it ran.
 * The 10% comparison is the flips' with their notifications against the same flips without them: the
 * mean over the rounds of each figure.
 */
export function deliveryTable (results: DeliveryResults, baseline?: CheckerPhaseResult): string[] {
  const { drain: d, flips, controls } = results
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)
  const expected = flips.reduce((sum, f) => sum + f.expected, 0)
  const delivered = flips.reduce((sum, f) => sum + f.delivered, 0)
  const duplicates = flips.reduce((sum, f) => sum + f.duplicates, 0)
  const worstP95 = Math.max(...flips.map((f) => f.latencyMs.p95))
  const lines = [
    `One worker, ${d.deliveries.toLocaleString('en-US')} webhook deliveries due at once to a local receiver: ${d.seconds.toFixed(1)} s = ` +
      `**${Math.round(d.perSecond)} deliveries/s** (target >= 500: ${verdict(d.perSecond >= 500)}), ${d.cpuMsPerDelivery.toFixed(2)} CPU ms per delivery in the worker.`,
    '',
    `While one worker checks ${flips[0]?.checker.monitors.toLocaleString('en-US')} monitors a minute, ${flips.length} flips of ` +
      `${flips[0]?.expected.toLocaleString('en-US')} deliveries each (incidents opened and resolved): ${delivered.toLocaleString('en-US')} / ` +
      `${expected.toLocaleString('en-US')} received, duplicates ${duplicates}; from the delivery row's insert to the receiver's 2xx p50 / p95 / ` +
      `p99 / max ${flips.map((f) => `**${f.latencyMs.p50} / ${f.latencyMs.p95} / ${f.latencyMs.p99} / ${f.latencyMs.max} ms**`).join(', ')} ` +
      `(p95 <= 1 s: ${verdict(worstP95 <= 1000)}).`,
    '',
    '| run | checks/s (offered) | lateness p50 / p95 / p99 / max ms | RSS MB | CPU s per 1,000 checks |',
    '|---|---:|---:|---:|---:|',
  ]
  const row = (label: string, p: CheckerPhaseResult) => `| ${label} | ${p.checksPerSecond.toFixed(1)} (${p.offeredPerSecond.toFixed(1)}) | ` +
    `${p.latenessMs.p50} / ${p.latenessMs.p95} / ${p.latenessMs.p99} / ${p.latenessMs.max} | ${p.rssMb} | ${p.cpuSecondsPer1000.toFixed(2)} |`
  if (baseline) lines.push(row('1 worker, no monitor failing (above)', baseline))
  flips.forEach((f, i) => {
    lines.push(row(`round ${i + 1}: the flip without notifications (channels unlinked)`, controls[i]))
    lines.push(row(`round ${i + 1}: the flip with the notifications`, f.checker))
  })
  const within = (a: number, b: number) => Math.abs(a - b) <= 0.1 * Math.max(1, b)
  const figure = (pick: (p: CheckerPhaseResult) => number) => [mean(flips.map((f) => pick(f.checker))), mean(controls.map(pick))] as const
  const [checks, controlChecks] = figure((p) => p.checksPerSecond)
  const [p95, controlP95] = figure((p) => p.latenessMs.p95)
  const [rss, controlRss] = figure((p) => p.rssMb)
  lines.push('', `Within 10% of the same flips without notifications (means over ${flips.length} rounds, with / without): ` +
    `checks/s ${checks.toFixed(1)} / ${controlChecks.toFixed(1)} ${verdict(within(checks, controlChecks))}, ` +
    `lateness p95 ${p95.toFixed(1)} / ${controlP95.toFixed(1)} ms ${verdict(within(p95, controlP95))}, ` +
    `RSS ${rss.toFixed(0)} / ${controlRss.toFixed(0)} MB ${verdict(within(rss, controlRss))}.`)
  return lines
}
