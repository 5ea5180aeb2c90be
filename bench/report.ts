// Formats the benchmark's results as Markdown tables, with the targets of issue 4 checked.
import { ENDPOINT_LABELS, type ApiResults, type Endpoint, type Run } from './api-bench.ts'
import type { CheckerPhaseResult, CheckerResults, LocatedPhaseResult } from './checker-bench.ts'
import type { ProbeAnchorResult } from './probe-anchor.ts'
import { deliveryTable, type DeliveryResults } from './delivery-bench.ts'
import { heartbeatTable, type HeartbeatResults } from './heartbeat-bench.ts'
import { agentTable, type AgentResults } from './agent-bench.ts'
import { statusPageTable, type StatusPageResults } from './status-page-bench.ts'
import { memoryTable, type MemoryRun } from './memory-bench.ts'
import { cliTable, type CliRun } from './cli-bench.ts'

export interface ReportInput {
  date: Date
  machine: string[]
  commands: string[]
  settings: string[]
  api?: ApiResults
  pglite?: ApiResults
  checker?: CheckerResults
  deliveries?: DeliveryResults
  heartbeats?: HeartbeatResults
  agents?: AgentResults
  status?: StatusPageResults
  memory?: MemoryRun[]
  cli?: CliRun[]
  notes: string[]
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const rps = (runs: Run[]) => runs.reduce((a, r) => a + r.requests, 0) / Math.max(1e-9, runs.reduce((a, r) => a + r.durationSeconds, 0))
const int = (n: number) => Math.round(n).toLocaleString('en-US')
const ms = (n: number) => n < 10 ? n.toFixed(1) : String(Math.round(n))

interface ApiSummary {
  endpoint: Endpoint
  pingwardRps: number
  referenceRps: number
  ratio: number
  pingwardP99: number
  referenceP99: number
  p99Ratio: number
  pingwardCpuUs: number
  referenceCpuUs: number
}

function summarizeApi (results: ApiResults): ApiSummary[] {
  return (Object.keys(results) as Endpoint[]).map((endpoint) => {
    const { pingward, reference } = results[endpoint]
    const pingwardP99 = mean(pingward.map((r) => r.latencyMs.p99))
    const referenceP99 = mean(reference.map((r) => r.latencyMs.p99))
    return {
      endpoint,
      pingwardRps: rps(pingward),
      referenceRps: rps(reference),
      ratio: rps(pingward) / rps(reference),
      pingwardP99,
      referenceP99,
      p99Ratio: pingwardP99 / referenceP99,
      pingwardCpuUs: mean(pingward.map((r) => r.serverCpuUs)),
      referenceCpuUs: mean(reference.map((r) => r.serverCpuUs)),
    }
  })
}

const verdict = (ok: boolean) => ok ? 'met' : '**missed**'

function apiTable (results: ApiResults, withTargets: boolean): string[] {
  const lines = [
    '| endpoint | Pingward req/s | reference req/s | ratio | Pingward p99 ms | reference p99 ms | p99 ratio | server CPU µs/req (Pingward / reference) |' +
      (withTargets ? ' target |' : ''),
    '|---|---:|---:|---:|---:|---:|---:|---:|' + (withTargets ? '---|' : ''),
  ]
  for (const s of summarizeApi(results)) {
    let target = ''
    if (withTargets) {
      if (s.endpoint === 'checks') target = `ratio >= 0.85: ${verdict(s.ratio >= 0.85)}; p99 <= 1.2x: ${verdict(s.p99Ratio <= 1.2)}`
      else if (s.endpoint === 'page') target = `p99 <= 20 ms (issue 16): ${verdict(s.pingwardP99 <= 20)}`
      else if (s.endpoint === 'create') target = '(none)'
      else target = `ratio >= 0.85: ${verdict(s.ratio >= 0.85)}`
    }
    lines.push(`| ${ENDPOINT_LABELS[s.endpoint]} | ${int(s.pingwardRps)} | ${int(s.referenceRps)} | ${s.ratio.toFixed(2)} | ` +
      `${ms(s.pingwardP99)} | ${ms(s.referenceP99)} | ${s.p99Ratio.toFixed(2)} | ${int(s.pingwardCpuUs)} / ${int(s.referenceCpuUs)} |` +
      (withTargets ? ` ${target} |` : ''))
  }
  return lines
}

function roundsTable (results: ApiResults): string[] {
  const lines = ['| endpoint | server | round | req/s | p50 ms | p99 ms | server CPU µs/req | machine CPU µs/req |', '|---|---|---:|---:|---:|---:|---:|---:|']
  for (const endpoint of Object.keys(results) as Endpoint[]) {
    const { pingward, reference } = results[endpoint]
    for (let i = 0; i < Math.max(pingward.length, reference.length); i++) {
      for (const [name, runs] of [['Pingward', pingward], ['reference', reference]] as const) {
        const r = runs[i]
        if (r) lines.push(`| ${ENDPOINT_LABELS[endpoint]} | ${name} | ${i + 1} | ${int(r.rps)} | ${ms(r.latencyMs.p50)} | ${ms(r.latencyMs.p99)} | ${int(r.serverCpuUs)} | ${int(r.machineCpuUs)} |`)
      }
    }
  }
  return lines
}

function checkerTable (results: CheckerResults): string[] {
  const lines = [
    `Capacity (all ${int(results.drain.monitors)} monitors due at once, one worker): ${int(results.drain.monitors)} checks in ` +
      `${results.drain.seconds.toFixed(1)} s = **${int(results.drain.checksPerSecond)} checks/s**.`,
    '',
    '| run | checks/s (offered) | lateness p50 / p95 / p99 / max ms | RSS MB (max of any worker) | CPU s per 1,000 checks | checks per worker | double checks | target |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ]
  for (const p of results.phases) {
    const keepsUp = p.checksPerSecond >= 0.99 * p.offeredPerSecond
    // Issue 17: 30,000 monitors a minute with p95 <= 2 s; at 10,000, <= 0.7 CPU s per 1,000 checks and RSS <= 200 MB.
    const many = p.monitors >= 30_000
    const plain = p.workers === 1 && !many && !p.label.includes('mixed') && !p.label.includes('maintenance')
    // Issue 44: with maintenance windows and dependencies, CPU per check within 10% of the plain phase's, p95 <= 1 s.
    const base = results.phases.find((q) => q.workers === 1 && q.monitors === p.monitors && q.label === '1 worker')
    const target = p.label.includes('maintenance')
      ? `keeps up: ${verdict(keepsUp)}; p95 <= 1 s: ${verdict(p.latenessMs.p95 <= 1000)}; CPU <= 1.1x the plain phase's: ` +
        (base ? `${(p.cpuSecondsPer1000 / base.cpuSecondsPer1000).toFixed(2)}x, ${verdict(p.cpuSecondsPer1000 <= 1.1 * base.cpuSecondsPer1000)}` : 'no plain phase')
      : p.workers === 1
        ? `keeps up: ${verdict(keepsUp)}; p95 <= ${many ? 2 : 5} s: ${verdict(p.latenessMs.p95 <= (many ? 2000 : 5000))}; ` +
        (plain ? `RSS <= 200 MB: ${verdict(p.rssMb <= 200)}; CPU <= 0.7 s per 1,000: ${verdict(p.cpuSecondsPer1000 <= 0.7)}` : `RSS <= 256 MB: ${verdict(p.rssMb <= 256)}`)
        : `spread: ${verdict(p.perWorker.every((n) => n > 0))}; no double checks: ${verdict(p.doubleChecks === 0)}`
    lines.push(`| ${p.label}, ${int(p.monitors)} monitors | ${p.checksPerSecond.toFixed(1)} (${p.offeredPerSecond.toFixed(1)}) | ` +
      `${p.latenessMs.p50} / ${p.latenessMs.p95} / ${p.latenessMs.p99} / ${p.latenessMs.max} | ${p.rssMb} | ${p.cpuSecondsPer1000.toFixed(2)} | ` +
      `${p.perWorker.map(int).join(' / ')} | ${p.doubleChecks} | ${target} |`)
  }
  lines.push('', 'Over each whole run the target server saw ' +
    results.phases.map((p) => `${int(p.targetRequests)} requests for ${int(p.recordedChecks)} recorded checks (${p.label})`).join(', ') +
    `; failed checks: ${results.phases.map((p) => p.failedChecks).join(', ')}. Machine CPU busy during the measured windows: ` +
    `${results.phases.map((p) => `${p.machineBusyPercent}%`).join(', ')}.`)
  if (results.anchor) lines.push('', ...anchorLines(results.anchor, results.phases.find((p) => p.workers === 1 && !p.label.includes('mixed'))))
  if (results.located) lines.push('', ...locatedLines(results.located))
  return lines
}

/** Issue 46: 10,000 monitors x 3 locations, lateness p95 <= 1 s per location. */
function locatedLines (located: LocatedPhaseResult): string[] {
  const offered = located.monitors / 60
  return [
    `Every one of ${int(located.monitors)} monitors checked from ${located.locations.length} built-in locations, one worker each ` +
      '(`CHECKER_LOCATION`), slots spread over the minute; lateness is the probe\'s start minus its slot\'s start:',
    '',
    '| location | checks/s (offered) | lateness p50 / p95 / p99 / max ms | slots without a check | target |',
    '|---|---:|---:|---:|---|',
    ...located.locations.map((l) => `| ${l.code} | ${l.checksPerSecond.toFixed(1)} (${offered.toFixed(1)}) | ` +
      `${l.latenessMs.p50} / ${l.latenessMs.p95} / ${l.latenessMs.p99} / ${l.latenessMs.max} | ${int(l.missedSlots)} | ` +
      `p95 <= 1 s: ${verdict(l.latenessMs.p95 <= 1000)}; keeps up: ${verdict(l.checksPerSecond >= 0.99 * offered)} |`),
    '',
    `The three workers: highest RSS ${located.rssMb} MB, ${located.cpuSecondsPer1000.toFixed(2)} CPU s per 1,000 checks, ` +
      `${located.failedChecks} failed checks; the machine's CPU ${located.machineBusyPercent}% busy in the window. The quorum's statement ` +
      'per recorded batch is counted by test/locations/monitor-locations.test.ts (one more than a batch of checks from anywhere).',
  ]
}

/** The native prober's CPU per HTTP probe beside Pingward's probe alone and its whole check (issue 17: <= 3x). */
function anchorLines (anchor: ProbeAnchorResult, steady: CheckerPhaseResult | undefined): string[] {
  const fullMs = steady?.cpuSecondsPer1000 // CPU s per 1,000 checks = CPU ms per check
  const lines = [
    `Cost of one HTTP probe of the same target (${int(anchor.pingwardProbe.probes)} probes, ${anchor.concurrency} at a time, ` +
      'each on a new connection, CPU of the prober\'s process only):',
    '',
    '| prober | CPU ms per probe | failed | x blackbox_exporter |',
    '|---|---:|---:|---:|',
  ]
  const ratio = (ms: number) => anchor.blackbox ? `${(ms / anchor.blackbox.cpuMsPerProbe).toFixed(2)}` : '-'
  if (anchor.blackbox) lines.push(`| blackbox_exporter (\`${anchor.blackbox.binary}\`, its /probe request included) | ${anchor.blackbox.cpuMsPerProbe.toFixed(3)} | ${anchor.blackbox.failed} | 1.00 |`)
  lines.push(`| Pingward's probe alone (bench/probe-only.ts) | ${anchor.pingwardProbe.cpuMsPerProbe.toFixed(3)} | ${anchor.pingwardProbe.failed} | ${ratio(anchor.pingwardProbe.cpuMsPerProbe)} |`)
  if (fullMs !== undefined) lines.push(`| Pingward's whole check (claim, probe, record; the 1-worker steady phase above) | ${fullMs.toFixed(3)} | - | ${ratio(fullMs)} |`)
  lines.push('', anchor.blackbox
    ? `Target (a whole check <= 3 x blackbox_exporter's probe): ${fullMs === undefined ? 'not measured (no 1-worker phase)' : verdict(fullMs <= 3 * anchor.blackbox.cpuMsPerProbe)}.`
    : `No blackbox_exporter on this machine (looked for ${anchor.missing}): \`apt-get install prometheus-blackbox-exporter\`, or BLACKBOX_EXPORTER=<path> to a release binary.`)
  return lines
}

export function renderReport (input: ReportInput): string {
  const out: string[] = ['# Pingward benchmark results', '', `Run on ${input.date.toISOString()}.`, '']
  out.push('## Machine', '', ...input.machine.map((m) => `- ${m}`), '')
  out.push('## Commands', '', '```sh', ...input.commands, '```', '')
  out.push('## Settings', '', ...input.settings.map((s) => `- ${s}`), '')
  if (input.api) {
    out.push('## API on PostgreSQL', '', ...apiTable(input.api, true), '')
    out.push('<details><summary>Every round</summary>', '', ...roundsTable(input.api), '', '</details>', '')
  }
  if (input.checker) out.push('## Checker on PostgreSQL', '', ...checkerTable(input.checker), '')
  if (input.deliveries) out.push('## Notification deliveries on PostgreSQL', '', ...deliveryTable(input.deliveries, input.checker?.phases[0]), '')
  if (input.heartbeats) out.push('## Heartbeat pings on PostgreSQL', '', ...heartbeatTable(input.heartbeats), '')
  if (input.agents) out.push('## Agents\' results on PostgreSQL', '', ...agentTable(input.agents), '')
  if (input.status) out.push('## Public status pages on PostgreSQL', '', ...statusPageTable(input.status), '')
  if (input.pglite) {
    out.push('## API on embedded PGlite', '', ...apiTable(input.pglite, false), '')
    out.push('<details><summary>Every round</summary>', '', ...roundsTable(input.pglite), '', '</details>', '')
  }
  if (input.memory) out.push('## Memory and start on a small box', '', ...memoryTable(input.memory), '')
  if (input.cli) out.push('## Operator CLI, time per command', '', ...cliTable(input.cli), '')
  out.push('## Notes', '', ...input.notes.map((n) => `- ${n}`), '')
  return out.join('\n')
}
