// A probe agent (api-contract section 17): no database, only outbound HTTP(S) to the API. It pulls its assignments by
// long poll, checks each monitor once per slot on the server's clock with the checker's own probes, and posts the
// results in batches; a lost connection keeps them for later, and a batch sent twice is recorded once.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import type { FastifyBaseLogger } from 'fastify'
import { createProber, type CheckTarget, type Prober } from '../checker/probe.ts'
import { MONITOR_DEFAULTS } from '../domain/monitor-types.ts'
import { slotStartAt } from '../locations/quorum.ts'
import { ASSIGNMENTS_MAX_WAIT_SECONDS, MAX_RESULTS_PER_BATCH, type AgentAssignment, type AgentResult } from '../locations/schema.ts'
import { pause } from '../runtime/pause.ts'
import { PINGWARD_VERSION } from '../runtime/version.ts'

export interface AgentOptions {
  /** The API's address, as its users reach it: `https://pingward.example.com` (a trailing `/api/v1` is taken too). */
  server: string
  token: string
  log: FastifyBaseLogger
  /** This agent's own address policy: its owner may let it check private ranges; the server cannot. */
  allowPrivateTargets: boolean
  dnsServers?: string[]
  /** How long a result waits for the API before it is dropped. */
  keepResultsMs?: number
  /** How often the results are sent. */
  sendEveryMs?: number
  /** Probes in flight at once; the others wait their turn (a slot's start brings every monitor due at once). */
  concurrency?: number
  /** Where results still unsent at a stop are written, to be sent after the next start (read and removed then). */
  resultsFile?: string
}

const AGENT = {
  pollWaitSeconds: ASSIGNMENTS_MAX_WAIT_SECONDS,
  batch: MAX_RESULTS_PER_BATCH,
  keepResultsMs: 30 * 60_000,
  sendEveryMs: 1000,
  helloEveryMs: 5 * 60_000,
  /** As a checker's CHECK_CONCURRENCY by default. */
  concurrency: 200,
  /** The wait after the n-th failure in a row: 1 s, doubling to 30 s. */
  retryMs: (failures: number) => Math.min(30_000, 1000 * 2 ** (failures - 1)),
  errorMessageMax: 1000,
} as const

/** A refusal of the API, with its status and its error line. */
class ApiRefusal extends Error {
  readonly status: number
  constructor (status: number, message: string) {
    super(`the API answered ${status}: ${message}`)
    this.status = status
  }
}

interface Assigned {
  assignment: AgentAssignment
  json: string
  timer?: NodeJS.Timeout
  abort: AbortController
}

export interface Agent {
  /** Results waiting to be sent. */
  readonly pending: number
  /** Sends what waits now; resolves when the API took it or refused it. */
  flush (): Promise<void>
  stop (): Promise<void>
}

export function startAgent (options: AgentOptions): Agent {
  const base = options.server.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
  const { log } = options
  const keepMs = options.keepResultsMs ?? AGENT.keepResultsMs
  const prober: Prober = createProber({ allowPrivateTargets: options.allowPrivateTargets, dnsServers: options.dnsServers })
  const stopping = new AbortController()
  const assigned = new Map<string, Assigned>()
  const queue: Queued[] = options.resultsFile ? readResults(options.resultsFile, log) : []
  let offsetMs = 0
  let sending: Promise<void> | undefined
  const concurrency = options.concurrency ?? AGENT.concurrency
  let probing = 0
  const turns: Array<() => void> = []
  /** Resolves when a probe may start: at once below the limit, else when one ends (first come, first served). */
  const turn = () => probing < concurrency ? (probing++, Promise.resolve()) : new Promise<void>((resolve) => turns.push(resolve))
  const done = () => {
    const next = turns.shift()
    if (next) next()
    else probing--
  }

  const serverNow = () => new Date(Date.now() + offsetMs)

  async function call (method: 'GET' | 'POST', path: string, init: { body?: object, headers?: Record<string, string>, signal?: AbortSignal } = {}): Promise<Response> {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${options.token}`, ...(init.body && { 'content-type': 'application/json' }), ...init.headers },
      ...(init.body && { body: JSON.stringify(init.body) }),
      signal: init.signal,
    })
    if (res.status >= 400) throw new ApiRefusal(res.status, await res.text().then((text) => { try { return JSON.parse(text).error } catch { return text.slice(0, 200) } }))
    return res
  }

  /** Says hello, and sets the clock offset from the server's time at the middle of the exchange. */
  async function hello (): Promise<void> {
    const sentAt = Date.now()
    const res = await call('POST', '/agent/hello', { body: { version: PINGWARD_VERSION }, signal: stopping.signal })
    const { data } = await res.json() as { data: { location: { code: string }, server_time: string } }
    const receivedAt = Date.now()
    offsetMs = Date.parse(data.server_time) - (sentAt + receivedAt) / 2
    log.info({ location: data.location.code, offsetMs: Math.round(offsetMs) }, 'agent: hello')
  }

  /** Applies a whole set or a delta (`changed`, of the `ids` assigned); false when an id assigned is still unknown here. */
  function apply (changed: AgentAssignment[], ids: string[]): boolean {
    const kept = new Set(ids)
    for (const [id, entry] of assigned) if (!kept.has(id)) unassign(id, entry)
    for (const assignment of changed) {
      const json = JSON.stringify(assignment)
      const known = assigned.get(assignment.monitor_id)
      if (known?.json === json) continue
      if (known) unassign(assignment.monitor_id, known)
      const entry: Assigned = { assignment, json, abort: new AbortController() }
      assigned.set(assignment.monitor_id, entry)
      // A new or changed assignment is checked in the slot under way; the server drops a slot's second check.
      launch(entry, slotOf(assignment, serverNow()))
    }
    return ids.every((id) => assigned.has(id))
  }

  function unassign (id: string, entry: Assigned): void {
    clearTimeout(entry.timer)
    entry.abort.abort()
    assigned.delete(id)
  }

  async function check (entry: Assigned, slotAt: Date): Promise<void> {
    const { assignment, abort } = entry
    // A timer may fire a millisecond early (it counts from the event loop's cached time): wait out the rest.
    for (let earlyMs = slotAt.getTime() - serverNow().getTime(); earlyMs > 0 && !abort.signal.aborted; earlyMs = slotAt.getTime() - serverNow().getTime()) {
      await pause(earlyMs, abort.signal)
    }
    if (abort.signal.aborted) return
    await turn()
    let seen: Awaited<ReturnType<Prober['probe']>>
    const checkedAt = serverNow()
    try {
      seen = await prober.probe(targetOf(assignment), abort.signal)
    } finally {
      done()
    }
    if (abort.signal.aborted) return
    queue.push({
      queuedAt: Date.now(),
      result: {
        monitor_id: assignment.monitor_id,
        slot_at: slotAt.toISOString(),
        checked_at: checkedAt.toISOString(),
        is_up: seen.isUp,
        degraded: seen.degraded,
        status_code: seen.statusCode,
        response_time_ms: seen.responseTimeMs,
        error_message: seen.errorMessage?.slice(0, AGENT.errorMessageMax) ?? null,
      },
    })
    const intervalMs = assignment.interval_minutes * 60_000
    // The next slot; after a probe longer than an interval, the one after now.
    const next = new Date(Math.max(slotAt.getTime() + intervalMs, slotOf(assignment, serverNow()).getTime() + intervalMs))
    entry.timer = setTimeout(() => launch(entry, next), next.getTime() - serverNow().getTime())
  }

  const launch = (entry: Assigned, slotAt: Date) => {
    check(entry, slotAt).catch((err) => log.error({ err, monitorId: entry.assignment.monitor_id }, 'agent: a check failed'))
  }

  /** Sends the oldest waiting results, at most a batch; results the API refuses as invalid are dropped, others wait. */
  async function send (): Promise<void> {
    const expired = queue.findIndex((item) => item.queuedAt >= Date.now() - keepMs)
    const dropped = expired === -1 ? queue.length : expired
    if (dropped > 0) {
      queue.splice(0, dropped)
      log.warn({ dropped }, 'agent: results kept too long without the API, dropped')
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, AGENT.batch)
      try {
        await call('POST', '/agent/results', { body: { results: batch.map((item) => item.result) }, signal: AbortSignal.timeout(30_000) })
      } catch (err) {
        if (!(err instanceof ApiRefusal && err.status === 400)) {
          log.warn({ err: String(err), waiting: queue.length }, 'agent: results not sent, kept for later')
          return
        }
        log.error({ err: err.message, dropped: batch.length }, 'agent: the API refused a batch of results')
      }
      queue.splice(0, batch.length)
    }
  }

  const flush = () => {
    sending ??= send().finally(() => { sending = undefined })
    return sending
  }

  const polling = (async () => {
    let etag: string | null = null
    // The as_of of the last answer: the next asks for a delta since it.
    let asOf: string | null = null
    let helloAt = 0
    for (let failures = 0; !stopping.signal.aborted;) {
      try {
        if (Date.now() - helloAt >= AGENT.helloEveryMs) {
          await hello()
          helloAt = Date.now()
        }
        const query = `wait=${etag ? AGENT.pollWaitSeconds : 0}${asOf ? `&since=${encodeURIComponent(asOf)}` : ''}`
        const res = await call('GET', `/agent/assignments?${query}`, { headers: etag ? { 'if-none-match': etag } : {}, signal: stopping.signal })
        if (res.status === 200) {
          const answer = await res.json() as { data: AgentAssignment[], monitor_ids: string[], as_of: string }
          // A monitor assigned again without a change (out of a pause window) is not in a delta: ask for the whole set.
          const complete = apply(answer.data, answer.monitor_ids)
          etag = complete ? res.headers.get('etag') : null
          asOf = complete ? answer.as_of : null
        }
        failures = 0
      } catch (err) {
        if (stopping.signal.aborted) return
        failures++
        helloAt = 0 // after a failure, a hello again: the clock, and a token that may have been rotated
        if (failures === 1 || err instanceof ApiRefusal) log.warn({ err: String(err) }, 'agent: the API is not reachable, trying again')
        await pause(AGENT.retryMs(failures), stopping.signal)
      }
    }
  })()

  const sender = (async () => {
    while (!stopping.signal.aborted) {
      await pause(options.sendEveryMs ?? AGENT.sendEveryMs, stopping.signal)
      await flush()
    }
  })()

  return {
    get pending () { return queue.length },
    flush,
    stop: async () => {
      stopping.abort()
      for (const [id, entry] of assigned) unassign(id, entry)
      await Promise.all([polling, sender, sending])
      await flush()
      if (options.resultsFile && queue.length > 0) writeResults(options.resultsFile, queue, log)
      await prober.close()
    },
  }
}

interface Queued { result: AgentResult, queuedAt: number }

/** The results a stopped agent left, removed from the file: a crash after this loses what is in memory, as before. */
function readResults (file: string, log: FastifyBaseLogger): Queued[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.error({ err, file }, 'agent: the results file cannot be read')
    return []
  }
  rmSync(file, { force: true })
  try {
    const queued = JSON.parse(text) as unknown
    if (!Array.isArray(queued) || !queued.every((item: Partial<Queued>) => typeof item?.queuedAt === 'number' && typeof item.result === 'object')) {
      throw new Error('not a list of queued results')
    }
    log.info({ file, results: queued.length }, 'agent: results of the last run, to be sent')
    return queued as Queued[]
  } catch (err) {
    log.error({ err, file }, 'agent: the results file is not the agent\'s, ignored')
    return []
  }
}

/** Written whole, then renamed: a stop cut short leaves the previous file or this one, never half of it. */
function writeResults (file: string, queue: Queued[], log: FastifyBaseLogger): void {
  try {
    writeFileSync(`${file}.tmp`, JSON.stringify(queue))
    renameSync(`${file}.tmp`, file)
    log.info({ file, results: queue.length }, 'agent: results not sent, written for the next start')
  } catch (err) {
    log.error({ err, file, results: queue.length }, 'agent: results not sent could not be written, lost')
  }
}

/** The start of the assignment's slot that holds `at`. */
const slotOf = (assignment: AgentAssignment, at: Date) => slotStartAt(new Date(assignment.slot_origin), assignment.interval_minutes, at)

/** What the probe of an assignment asks, by its type. */
function targetOf (assignment: AgentAssignment): CheckTarget {
  const { url, timeout_seconds: timeoutSeconds } = assignment
  switch (assignment.monitor_type) {
    case 'tcp': return { type: 'tcp', url, timeoutSeconds }
    case 'dns': return { type: 'dns', url, timeoutSeconds, recordType: assignment.dns_record_type ?? MONITOR_DEFAULTS.dns_record_type, expected: assignment.dns_expected }
    case 'site': return {
      type: 'site',
      url,
      timeoutSeconds,
      method: assignment.method,
      expectedStatus: assignment.expected_status,
      requestHeaders: assignment.request_headers,
      secretHeaders: assignment.secret_headers,
      requestBody: assignment.request_body,
      keyword: assignment.keyword,
      keywordMode: assignment.keyword_mode,
      degradedAfterMs: assignment.degraded_after_ms,
    }
  }
}
