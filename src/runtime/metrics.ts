// The process's Prometheus metrics (prom-client), on a registry of its own: what the checker, the claiming
// loops, the delivery worker and the HTTP edge report, and the counts read from the database at scrape time.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Counter, Gauge, Histogram, MetricObjectWithValues, MetricValue, Registry } from 'prom-client'
import type { PoolUse } from '../db/client.ts'
import { DELIVERY_STATUSES, MONITOR_STATUSES, type DeliveryStatus } from '../domain/vocabulary.ts'

/** Rows per status, read at scrape time (a status without rows may be absent: it reads 0). */
interface StatusCounts { monitors: Record<string, number>, deliveries: Record<string, number> }

export interface MetricsSources {
  http?: boolean
  pool?: () => PoolUse
  /** Monitors and deliveries by status, one query per scrape; only the API process gives it (the counts are the database's). */
  statusCounts?: () => Promise<StatusCounts>
  /** A scrape whose status counts could not be read still answers, without them; this hears why. */
  onStatusCountsError?: (err: unknown) => void
  /** Node's own metrics (CPU, memory, event loop); false on a second thread, whose process the first one reports. */
  runtime?: boolean
}

/** One registry's metrics as prom-client hands them from thread to thread. */
export type MetricsSnapshot = Array<MetricObjectWithValues<MetricValue<string>>>

const CHECK_OUTCOMES = ['up', 'degraded', 'down'] as const
export type CheckOutcome = typeof CHECK_OUTCOMES[number]

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
// A check is late by its claim's wait, the loop's sleep and a saturated checker's queue: up to minutes.
const LATENESS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
const BATCH = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]

/** Every instrument of one process, on its own registry so that two apps in one test process never share a counter. */
export class Metrics {
  readonly contentType: string
  private readonly registry: Registry
  private readonly checks: Counter<'outcome' | 'location'>
  private readonly checkDuration: Histogram<'outcome'>
  private readonly lateness: Histogram<'location'>
  private readonly agentResults: Counter<'location' | 'result'>
  private readonly claims: Histogram<'loop'>
  private readonly attempts: Counter<'result'>
  private readonly requests: Counter<'method' | 'route' | 'status_code'>
  private readonly requestDuration: Histogram<'method' | 'route'>
  private readonly statusSnapshots: Counter<'source'>
  private readonly monitors: Gauge<'status'>
  private readonly deliveries: Gauge<'status'>
  private readonly pool: { size: Gauge, inUse: Gauge, waiting: Gauge }

  private readonly sources: MetricsSources
  private readonly prom: typeof import('prom-client')
  private readonly peers: Array<() => Promise<MetricsSnapshot | undefined>> = []

  constructor (prom: typeof import('prom-client'), sources: MetricsSources) {
    this.sources = sources
    this.prom = prom
    const registry = this.registry = new prom.Registry()
    this.contentType = registry.contentType
    const registers = [registry]
    // The gauges of a source the process has not got are not exposed at all (rather than as 0).
    const counted = sources.statusCounts ? registers : []
    const pooled = sources.pool ? registers : []
    const served = sources.http ? registers : []
    this.checks = new prom.Counter({ name: 'pingward_checks_total', help: 'Checks recorded by this process, by outcome and location', labelNames: ['outcome', 'location'], registers })
    this.checkDuration = new prom.Histogram({
      name: 'pingward_check_duration_seconds', help: 'Time from a check\'s start to the target\'s final response (or its failure)', labelNames: ['outcome'], buckets: SECONDS, registers,
    })
    this.lateness = new prom.Histogram({ name: 'pingward_checker_lateness_seconds', help: 'How late each check started after it was due, by location', labelNames: ['location'], buckets: LATENESS, registers })
    this.agentResults = new prom.Counter({
      name: 'pingward_agent_results_total', help: 'Results agents posted to this API process, by location and what became of them', labelNames: ['location', 'result'], registers: served,
    })
    this.claims = new prom.Histogram({
      name: 'pingward_claim_batch_size', help: 'Items taken by each claim that found work (loop: checker = monitors, delivery = channels)', labelNames: ['loop'], buckets: BATCH, registers,
    })
    this.attempts = new prom.Counter({ name: 'pingward_delivery_attempts_total', help: 'Delivery attempts recorded by this process, by the delivery\'s resulting status', labelNames: ['result'], registers })
    this.requests = new prom.Counter({ name: 'pingward_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status_code'], registers: served })
    this.requestDuration = new prom.Histogram({
      name: 'pingward_http_request_duration_seconds', help: 'Time to answer an HTTP request, by method and route pattern', labelNames: ['method', 'route'], buckets: SECONDS, registers: served,
    })
    this.statusSnapshots = new prom.Counter({
      name: 'pingward_status_snapshots_total', help: 'Public status page snapshots taken, by source (database: built here; shared: another process\'s copy)', labelNames: ['source'], registers: served,
    })
    this.monitors = new prom.Gauge({ name: 'pingward_monitors', help: 'Monitors (not deleted) by status, read from the database at scrape time', labelNames: ['status'], registers: counted })
    this.deliveries = new prom.Gauge({ name: 'pingward_deliveries', help: 'Notification deliveries by status, read from the database at scrape time', labelNames: ['status'], registers: counted })
    this.pool = {
      size: new prom.Gauge({ name: 'pingward_db_pool_size', help: 'Database connections of the pool (1 for the embedded database)', registers: pooled }),
      inUse: new prom.Gauge({ name: 'pingward_db_pool_in_use', help: 'Database connections running a query or a transaction', registers: pooled }),
      waiting: new prom.Gauge({ name: 'pingward_db_pool_waiting', help: 'Queries waiting for a database connection', registers: pooled }),
    }
    // Every known series from the start, at 0: a rate() sees the first increment (a checker's location's: checking()).
    for (const result of ['delivered', 'failed', 'dead']) this.attempts.inc({ result }, 0)
    if (sources.http) for (const source of ['database', 'shared']) this.statusSnapshots.inc({ source }, 0)
    if (sources.runtime === false) return
    prom.collectDefaultMetrics({ register: registry })
    // prom-client names these gauges like counters, which Prometheus's own linter (promtool) refuses.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      registry.removeSingleMetric(name)
    }
  }

  /** Another thread's instruments, summed into this one's scrape; undefined: that thread is gone. */
  addPeer (snapshot: () => Promise<MetricsSnapshot | undefined>): void {
    this.peers.push(snapshot)
  }

  /** This registry's metrics, for a peer's scrape. */
  async snapshot (): Promise<MetricsSnapshot> {
    this.readPool()
    return this.registry.getMetricsAsJSON()
  }

  private readPool (): void {
    const use = this.sources.pool?.()
    if (!use) return
    this.pool.size.set(use.size)
    this.pool.inUse.set(use.inUse)
    this.pool.waiting.set(use.waiting)
  }

  /** A checker of `location` starts in this process: its series exist from now, at 0. */
  checking (location: string): void {
    for (const outcome of CHECK_OUTCOMES) this.checks.inc({ outcome, location }, 0)
  }

  check (location: string, outcome: CheckOutcome, durationMs: number, latenessMs: number): void {
    this.checks.inc({ outcome, location })
    this.checkDuration.observe({ outcome }, durationMs / 1000)
    this.lateness.observe({ location }, Math.max(0, latenessMs) / 1000)
  }

  /** A batch of an agent's results: how many were recorded (late ones among them), duplicates and unassigned. */
  agentBatch (location: string, receipt: { recorded: number, late: number, duplicates: number, unassigned: number }): void {
    this.agentResults.inc({ location, result: 'counted' }, receipt.recorded - receipt.late)
    this.agentResults.inc({ location, result: 'late' }, receipt.late)
    this.agentResults.inc({ location, result: 'duplicate' }, receipt.duplicates)
    this.agentResults.inc({ location, result: 'unassigned' }, receipt.unassigned)
  }

  claimed (loop: string, count: number): void {
    if (count > 0) this.claims.observe({ loop }, count)
  }

  deliveryAttempts (result: Exclude<DeliveryStatus, 'pending'>, count: number): void {
    this.attempts.inc({ result }, count)
  }

  statusSnapshot (source: 'database' | 'shared'): void {
    this.statusSnapshots.inc({ source })
  }

  /** An answered HTTP request; `route` is the route's pattern (never the raw URL: one series per route). */
  httpRequest (method: string, route: string, statusCode: number, durationMs: number): void {
    this.requests.inc({ method, route, status_code: statusCode })
    this.requestDuration.observe({ method, route }, durationMs / 1000)
  }

  async render (): Promise<string> {
    const { statusCounts } = this.sources
    this.readPool()
    if (statusCounts) {
      try {
        const counts = await statusCounts()
        for (const status of MONITOR_STATUSES) this.monitors.set({ status }, counts.monitors[status] ?? 0)
        for (const status of DELIVERY_STATUSES) this.deliveries.set({ status }, counts.deliveries[status] ?? 0)
      } catch (err) {
        // Left out rather than stale or failing the scrape: the process's own metrics still count.
        this.monitors.reset()
        this.deliveries.reset()
        this.sources.onStatusCountsError?.(err)
      }
    }
    if (this.peers.length === 0) return this.registry.metrics()
    const peers = await Promise.all(this.peers.map((snapshot) => snapshot()))
    const all = [await this.registry.getMetricsAsJSON(), ...peers.filter((peer) => peer !== undefined)]
    return this.prom.AggregatorRegistry.aggregate(all).metrics()
  }

  close (): void {
    this.registry.clear()
  }
}

/** Loads prom-client (only a process that serves metrics does) and makes the process's instruments. */
export async function createMetrics (sources: MetricsSources = {}): Promise<Metrics> {
  return new Metrics(await import('prom-client'), sources)
}

/** Whether an Authorization header carries `Bearer <token>`; compared in constant time. */
export function bearerMatches (header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '')
  if (!match) return false
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(match[1]), digest(token))
}
